// The rules of each modality, short and illustrated with cards: a screen (#/rules/<preset>,
// from the lobby) and the same text in a dialog (from the create-table dialog and the
// table's "?" button). The variant's own facts come from its preset (presets.ts, which
// mirrors app/rules/ruleset.py), worded with the house-rules editor's labels, so the page
// and the rules engine cannot drift apart.
import "./learn.css";
import { cardBack, cardFace } from "../../cards";
import { h, mount, type Child } from "../../dom";
import { t, tk, type Key } from "../../i18n";
import { ACE_TO_ACE_BONUS, PRESET_NAMES, PRESETS, type Preset, type Rules } from "../../presets";
import { dialog } from "../../ui";
import type { View } from "../../view";

const presetName = (p: string): string => tk(`preset.${p}`);
const ruleLabel = (name: string): string => tk(`rule.${name}`);

function isPreset(p: string): p is Preset {
  return (PRESET_NAMES as readonly string[]).includes(p);
}

const cards = (names: string[], label?: string): HTMLElement =>
  h("div", { class: "learn-cards", role: "group", "aria-label": label ?? t("learn.example") },
    ...names.map((n) => (n === "back" ? cardBack("", t("table.stock")) : cardFace(n))));

function section(id: string, title: string, text: string | HTMLElement, ...art: Child[]): HTMLElement {
  const body = typeof text === "string" ? h("p", null, text) : text;
  return h("section", { class: "learn-block", id: `learn-${id}`, "aria-labelledby": `learn-${id}-t` },
    h("div", { class: "learn-text" }, h("h3", { id: `learn-${id}-t` }, title), body),
    art.length ? h("div", { class: "learn-art" }, ...art) : null);
}

/** "1. … 2. … 3. …" as a numbered list (one string per language keeps the steps together). */
function steps(text: string): HTMLElement {
  const parts = text.split(/\s*\d\.\s+/).filter(Boolean);
  return h("ol", { class: "learn-steps" }, ...parts.map((p) => h("li", null, p)));
}

/** A rule's value in words, as the house-rules editor says it. */
function value(name: string, v: number | string | boolean): string {
  if (typeof v === "boolean") return t(v ? "learn.yes" : "learn.no");
  if (name === "target_score") return v ? t("learn.points", { n: Number(v) }) : t("learn.oneHand");
  const key = `rule.${name}.${v}`;
  if (tk(key) !== key) return tk(key, undefined, { bonus: ACE_TO_ACE_BONUS });
  return typeof v === "number" ? t("learn.points", { n: v }) : String(v);
}

// The facts that tell the modalities apart, in the order a player asks about them.
const FACTS: { name: string; when?: (r: Rules) => boolean; count?: boolean }[] = [
  { name: "discard_pile" },
  { name: "jokers", count: true },
  { name: "groups" },
  { name: "close_requires" },
  { name: "go_out_by_meld" },
  { name: "muertos", count: true },
  { name: "single_take_no_discard", when: (r) => !!r.single_take_no_discard },
  { name: "semi_clean" },
  { name: "royal" },
  { name: "ace_to_ace" },
  { name: "stock_end", when: (r) => Number(r.stock_end) > 0, count: true },
  { name: "add_to_any_meld", when: (r) => !!r.add_to_any_meld },
  { name: "target_score" },
];

/** The rules of one modality as elements (the screen and the dialog share them). */
export function rulesBody(preset: Preset): HTMLElement {
  const r = PRESETS[preset];
  const pile = String(r.discard_pile) as "open" | "closed" | "any_depth";
  const facts = FACTS.filter((f) => !f.when || f.when(r)).map((f) => {
    const v = r[f.name];
    const shown = f.count && typeof v === "number" ? (v ? String(v) : value(f.name, v)) : value(f.name, v);
    return h("div", { class: "fact", "data-rule": f.name },
      h("dt", null, ruleLabel(f.name)), h("dd", null, shown));
  });
  const points = t(r.card_points === "face" ? "learn.points.face" : "learn.points.standard",
    { two: Number(r.two_points), joker: Number(r.joker_points) });
  return h("div", { class: "learn-body", "data-preset": preset },
    section("goal", t("learn.goal.title"), t("learn.goal.text"),
      cards(["KS", "KH", "KD", "JK", "KC", "KS", "KH"])),
    section("turn", t("learn.turn.title"), steps(t("learn.turn.text")),
      h("div", { class: "learn-cards" }, cardBack("", t("table.stock")), cardFace("9D", "pile-top"))),
    section("run", t("learn.run.title"), t("learn.run.text"), cards(["5H", "6H", "7H", "8H"]), cards(["QS", "KS", "AS"])),
    r.groups
      ? section("group", t("learn.group.title"), t("learn.group.text"), cards(["9C", "9D", "9S"]))
      : section("group", t("learn.group.title"), t("learn.group.none")),
    section("wild", t("learn.wild.title"), t(Number(r.jokers) ? "learn.wild.text" : "learn.wild.textNoJokers"),
      cards(["4S", "2D", "6S"]), Number(r.jokers) ? cards(["10C", "JC", "JK"]) : null),
    section("canasta", t("learn.canasta.title"), t("learn.canasta.text"),
      cards(["3S", "4S", "5S", "6S", "7S", "8S", "9S"], tk("canasta.clean")),
      cards(["3D", "4D", "2C", "6D", "7D", "8D", "9D"], tk("canasta.dirty"))),
    section("pile", t("learn.pile.title"), t(`learn.pile.${pile}` as Key),
      pile === "closed" ? h("div", { class: "learn-cards pile-ex closed" }, cardBack(), cardBack(), cardFace("7C"))
        : h("div", { class: "learn-cards pile-ex open" }, cardFace("4H"), cardFace("QD"), cardFace("7C"))),
    Number(r.muertos) ? section("muerto", t("learn.muerto.title"), t("learn.muerto.text"),
      h("div", { class: "learn-cards muerto-ex" }, cardBack(), cardBack())) : null,
    section("close", t("learn.close.title"),
      t(!Number(r.muertos) ? "learn.close.noMuerto" : r.close_requires === "clean" ? "learn.close.clean" : "learn.close.any")),
    section("points", t("learn.points.title"), h("div", null,
      h("p", null, t("learn.points.text", { bonus: Number(r.close_bonus) })),
      h("p", { class: "learn-values" }, points))),
    h("section", { class: "learn-block facts", "aria-labelledby": "learn-facts-t" },
      h("h3", { id: "learn-facts-t" }, t("learn.specific", { variant: presetName(preset) })),
      h("dl", { class: "facts-list" }, ...facts)));
}

function picker(current: Preset, choose: (p: Preset) => void): HTMLElement {
  return h("div", { class: "learn-variants", role: "tablist", "aria-label": t("lobby.modality") },
    ...PRESET_NAMES.map((p) => h("button", {
      type: "button", role: "tab", class: `chip ${p === current ? "active" : ""}`, "data-preset": p,
      "aria-selected": String(p === current), onclick: () => choose(p),
    }, presetName(p))));
}

/** The rules screen: #/rules or #/rules/<preset>. */
export function rulesView(el: HTMLElement, arg = ""): View {
  let preset: Preset = isPreset(arg) ? arg : "cerrado";
  function render(): void {
    mount(el, h("section", { class: "page learn", id: "rules-page" },
      h("h1", null, t("learn.title")),
      h("p", { class: "lead" }, t("learn.lead")),
      picker(preset, (p) => { preset = p; history.replaceState(null, "", `#/rules/${p}`); render(); }),
      h("div", { class: "panel" }, rulesBody(preset))));
  }
  return { render };
}

/** The same rules over the current screen (the create dialog, the table). */
export function openRules(preset: string): void {
  let current: Preset = isPreset(preset) ? preset : "cerrado";
  const box = h("div", { class: "learn", id: "rules-dialog" });
  const paint = () => mount(box, picker(current, (p) => { current = p; paint(); }), rulesBody(current));
  paint();
  dialog(t("learn.title"), box, { wide: true });
}

