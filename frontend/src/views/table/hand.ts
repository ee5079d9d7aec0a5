// Your hand and its action buttons. Each card keeps its element across renders (keyed by
// card and occurrence), so sorting or drawing glides instead of jumping. On narrow screens
// the cards overlap like a fan held in the hand instead of wrapping over each other.
import { h, type VNode } from "preact";
import { sortCards } from "../../cards";
import { t } from "../../i18n";
import { vCardButton } from "./vcards";

export type Sort = "suit" | "rank";

/** Stable keys: "7H#0", "7H#1" for two sevens of hearts, whatever the order. */
export function keyed(hand: string[]): { card: string; key: string }[] {
  const seen = new Map<string, number>();
  return hand.map((card) => {
    const n = seen.get(card) ?? 0;
    seen.set(card, n + 1);
    return { card, key: `${card}#${n}` };
  });
}

export interface HandInput {
  hand: string[];
  sort: Sort;
  selected: Set<string>; // keys
  fresh: string | null; // the key of the card just drawn
  rows: number;
  onToggle: (key: string) => void;
  onKey: (e: KeyboardEvent, i: number) => void;
}

export function handView(p: HandInput): VNode<any> {
  const cards = keyed(sortCards(p.hand, p.sort));
  const per = Math.ceil(cards.length / p.rows);
  const rows = p.rows > 1 ? [cards.slice(0, per), cards.slice(per)] : [cards];
  let i = 0;
  return h("div", { key: "hand", class: `hand rows-${p.rows}`, role: "group", "aria-label": t("table.yourHand", { n: cards.length }), id: "hand", "data-fx": "hand", "data-region": "hand" },
    ...rows.map((row, r) => h("div", { key: `row${r}`, class: "hand-row", style: `--n:${row.length}` },
      ...row.map(({ card, key }) => {
        const at = i++;
        const sel = p.selected.has(key);
        return h("div", { key, class: `slot ${sel ? "up" : ""}` }, vCardButton(card, `${sel ? "selected" : ""} ${key === p.fresh ? "fresh" : ""}`, {
          "aria-pressed": String(sel), "data-key": key, "data-card": card, draggable: "true",
          onclick: () => p.onToggle(key),
          ondragstart: (e: DragEvent) => e.dataTransfer?.setData("text/card", card),
          onkeydown: (e: KeyboardEvent) => p.onKey(e, at),
        }));
      }))));
}

export interface ActionsInput {
  canDraw: boolean;
  canTake: boolean;
  canPlay: boolean;
  chosen: number;
  meldLegal: boolean;
  sort: Sort;
  draw: () => void;
  take: () => void;
  meld: () => void;
  discard: () => void;
  toggleSort: () => void;
  clear: () => void;
}

function btn(id: string, label: string, key: string, on: () => void, enabled: boolean, cls = ""): VNode<any> {
  return h("button", { key: id, type: "button", id, class: `btn ${cls}`, disabled: !enabled, "aria-keyshortcuts": key, onclick: on },
    label, h("kbd", { "aria-hidden": "true", "data-raw": "" }, key.toUpperCase()));
}

export function actionsView(a: ActionsInput): VNode<any> {
  // Shortcut keys are digits in the bar's order, the same in every language and
  // keyboard layout. All four buttons are always there (keyboard shortcuts, tests, screen readers); the
  // pair that does not fit the phase is folded away to leave room on small screens.
  const play = a.canPlay ? "" : " folded";
  const draw = a.canPlay ? " folded" : "";
  return h("div", { key: "actions", class: "actions-bar", role: "toolbar", "aria-label": t("table.actions") },
    btn("act-draw", t("table.draw"), "1", a.draw, a.canDraw, (a.canDraw ? "primary" : "") + draw),
    btn("act-pile", t("table.takePile"), "2", a.take, a.canTake, draw),
    btn("act-meld", t("table.meld"), "3", a.meld, a.canPlay && a.chosen >= 3, (a.meldLegal ? "primary target" : "") + play),
    btn("act-discard", t("table.discard"), "4", a.discard, a.canPlay && a.chosen === 1, (a.canPlay && a.chosen === 1 ? "danger" : "") + play),
    // Sorting and clearing are a symbol and their words: on a phone the words fold away
    // (kept as the button's name), so the bar stays one row above the hand.
    h("button", {
      key: "sort", type: "button", id: "act-sort", class: "btn ghost", "aria-keyshortcuts": "5", onclick: a.toggleSort,
      "aria-label": t(a.sort === "suit" ? "table.sortRank" : "table.sortSuit"),
    }, h("span", { class: "sym", "aria-hidden": "true", "data-raw": "" }, "⇅"),
    h("span", { class: "lbl", "aria-hidden": "true" }, t(a.sort === "suit" ? "table.sortRank" : "table.sortSuit"))),
    a.chosen ? h("button", { key: "clear", type: "button", id: "act-clear", class: "btn ghost", onclick: a.clear, "aria-label": t("table.clear") },
      h("span", { class: "sym", "aria-hidden": "true", "data-raw": "" }, "✕"),
      h("span", { class: "lbl", "aria-hidden": "true" }, t("table.clear"))) : null);
}
