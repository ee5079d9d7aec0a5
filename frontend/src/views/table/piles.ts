// The centre of the felt: the stock, the discard pile (with what taking it needs), the
// muertos.
import { h, type VNode } from "preact";
import { cardLabel, parse, SYMBOL } from "../../cards";
import type { GameView } from "../../game";
import { t } from "../../i18n";
import { vBack, vFace } from "./vcards";

export function stockView(n: number, target: boolean, onDraw: () => void): VNode<any> {
  return h("button", {
    key: "stock", type: "button", id: "stock", class: `pile stock ${target ? "target" : ""}`, disabled: !target,
    "aria-label": t("table.stockLabel", { n }), onclick: onDraw, "data-fx": "stock", "data-region": "stock",
  }, n ? vBack() : h("span", { class: "card ghost", "aria-hidden": "true" }),
  h("span", { class: "pile-count", "aria-hidden": "true", "data-n": String(n) }),
  h("span", { class: "pile-name" }, t("table.stock")));
}

export interface PileInput {
  g: GameView;
  pending: boolean; // the legal commands are on their way: say nothing yet rather than "cannot"
  drawTarget: boolean; // my turn to draw and some take of the pile is legal
  drawPhase: boolean; // my turn to draw at all
  dropTarget: boolean; // one card chosen in the play phase: discard it here
  needs: string[][]; // closed pile: the hand cards each legal take needs
  selected: string | null;
  lastDiscard: boolean;
  onClick: () => void;
  onDrop: (card: string) => void;
}

function short(card: string): string {
  const c = parse(card);
  return c.rank === "JK" ? "JK" : `${c.rank}${SYMBOL[c.suit]}`;
}

function caption(p: PileInput): string | null {
  if (!p.drawPhase || !p.g.discard.size || p.pending) return null;
  if (!p.drawTarget) return t("table.pileCannot");
  if (p.g.discard.kind !== "closed" || !p.needs.length) return t("table.pileTakeAll");
  return t("table.pileNeeds", { cards: p.needs[0].map(short).join(" ") });
}

export function pileView(p: PileInput): VNode<any> {
  const d = p.g.discard;
  const top = d.cards[d.cards.length - 1];
  const label = p.dropTarget && p.selected ? t("table.discardHere", { card: cardLabel(p.selected) })
    : d.size ? t(d.kind === "closed" ? "table.pileClosedLabel" : "table.pileLabel", { n: d.size, card: top ? cardLabel(top) : "" })
      : t("table.pileEmpty");
  const shown = d.kind === "closed" ? (top ? [top] : []) : d.cards.slice(-5);
  const need = caption(p);
  return h("button", {
    key: "pile", type: "button", id: "pile", "data-fx": "pile", "data-region": "pile", "data-legal": p.pending ? "pending" : "ready",
    class: `pile discard ${p.drawTarget || p.dropTarget ? "target" : ""} ${p.dropTarget ? "drop" : ""}`,
    "aria-label": need ? `${label}. ${need}` : label,
    onclick: p.onClick,
    ondragover: (e: DragEvent) => { if (p.dropTarget || p.selected === null) e.preventDefault(); },
    ondrop: (e: DragEvent) => { e.preventDefault(); const c = e.dataTransfer?.getData("text/card"); if (c) p.onDrop(c); },
  },
  h("span", { class: "fanned" }, shown.length
    ? shown.map((c, i) => vFace(c, i === shown.length - 1 ? `top ${p.lastDiscard ? "last" : ""}` : "", undefined,
      { key: `${d.size - shown.length + i}`, "data-fx": i === shown.length - 1 ? "pile-top" : undefined }))
    : h("span", { class: "card ghost", "aria-hidden": "true" })),
  h("span", { class: "pile-count", "aria-hidden": "true", "data-n": String(d.size) }),
  h("span", { class: "pile-name", "aria-hidden": "true", "data-n": t(d.kind === "closed" ? "table.pileClosed" : "table.pile") }),
  need ? h("span", { class: "pile-need" }, need) : null);
}

export function muertosView(g: GameView, side: (team: number) => string): VNode<any> | null {
  if (!g.muertos.length || g.muertos.every((m) => m.status === "none")) return null;
  return h("div", { key: "muertos", class: "muertos", role: "group", "aria-label": t("table.muertos") },
    ...g.muertos.map((m, team) => {
      const state = m.status === "table" ? t("table.muertoWaiting", { n: m.size })
        : m.status === "stock" ? t("table.muertoStock") : t("table.muertoTaken");
      return h("div", {
        key: team, class: `muerto ${m.status}`, role: "img", "data-fx": `muerto-${team}`, "data-region": "muerto", "data-team": team,
        "aria-label": `${t("table.muertoOf", { side: side(team) })}: ${state}`,
      }, m.status === "table" ? vBack("small") : h("span", { class: "card ghost small", "aria-hidden": "true" }),
      h("span", { class: "muerto-label" }, t("table.muerto")));
    }));
}
