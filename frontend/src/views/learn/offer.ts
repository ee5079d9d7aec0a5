// The lobby's offer of a guided first hand (guide.ts plays it): light, so the guide
// itself loads only when it is taken, or when this tab is playing it (main.ts).
import "./learn.css";
import { h } from "../../dom";
import { t } from "../../i18n";
import { toast } from "../../ui";

export const OFFERED = "buraco.guide"; // "started" | "skipped" | "done": the offer is made once
export const TABLE = "buraco.guide.table"; // the guided table, for this tab

function startGuide(): void {
  import("./guide").then((m) => m.startGuide()).catch(() => toast(t("err.unknown"), "error"));
}

/** Whether this tab plays a guided hand now (main.ts then loads the guide at boot). */
export function guiding(): boolean {
  return sessionStorage.getItem(TABLE) !== null;
}

export function guideOffered(): boolean {
  return localStorage.getItem(OFFERED) !== null;
}

/** The lobby's offer, or null once it was taken or declined. */
export function guideOffer(onAnswer: () => void): HTMLElement | null {
  if (guideOffered()) return null;
  return h("section", { class: "panel guide-offer", id: "guide-offer", "aria-labelledby": "guide-offer-t" },
    h("h2", { id: "guide-offer-t" }, t("guide.offerTitle")),
    h("p", null, t("guide.offerText")),
    h("div", { class: "row wrap" },
      h("button", { type: "button", class: "btn primary", id: "guide-start", onclick: () => startGuide() }, t("guide.start")),
      h("button", { type: "button", class: "btn ghost", id: "guide-no", onclick: () => { localStorage.setItem(OFFERED, "skipped"); onAnswer(); } },
        t("guide.noThanks"))));
}

