// The ways into the rules screen from other screens (the create dialog, the table): light,
// so that the rules themselves (rules.ts, its card pictures and text) load on first use.
import { h } from "../../dom";
import { laterWords, t } from "../../i18n";
import { toast } from "../../ui";

/** Opens the rules of ``preset`` in a dialog (rules.ts, loaded now if it is not yet). */
export function openRules(preset: string): void {
  Promise.all([import("./rules"), laterWords()]).then(([m]) => m.openRules(preset)).catch(() => toast(t("err.unknown"), "error"));
}

/** The "?" control that opens the rules of a modality. */
export function rulesButton(preset: () => string, cls = "icon-btn tool"): HTMLElement {
  return h("button", {
    type: "button", class: `${cls} rules-help`, id: "rules-help", "aria-label": t("learn.help"), title: t("learn.help"),
    onclick: () => openRules(preset()),
  }, "?");
}
