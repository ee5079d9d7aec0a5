// The melds on the felt, one zone per side. A zone never scrolls inside itself: when its
// fanned melds no longer fit, it turns compact (each meld as its run or rank, a count, a
// wild marker, a canasta as one pile marked clean or dirty), so every meld stays readable.
// A meld lights up when the chosen cards may join it; so does the "new meld" target.
import { h, type VNode } from "preact";
import { cardLabel, parse, SYMBOL } from "../../cards";
import type { MeldView } from "../../game";
import { t, tk } from "../../i18n";
import { vFace } from "./vcards";

export function meldLabel(m: MeldView): string {
  const kind = t(m.type === "run" ? "meld.run" : "meld.group");
  const names = m.cards.map((c) => {
    const [card, slot] = c.split("=");
    return slot ? t("card.wildFor", { card: cardLabel(card), slot: cardLabel(slot) }) : cardLabel(card);
  });
  const can = m.canasta ? ` · ${tk(`canasta.${m.canasta}`)}` : "";
  return `${kind} (${m.size})${can}: ${names.join(", ")}`;
}

export function canastaBadge(kind: string | null): VNode<any> | null {
  if (!kind) return null;
  return h("span", { class: `badge-canasta ${kind}` }, tk(`canasta.${kind}`));
}

export interface ZoneInput {
  team: number;
  ours: boolean;
  side: string;
  melds: MeldView[];
  canAdd: boolean; // your turn to play and these melds take your cards
  targets: Set<number>; // melds the chosen cards may join
  last: number | null; // the meld changed by the last move
  area: string;
  compact: number; // 0 fanned; 1 compact (the fanned melds did not fit the zone); 2 dense
  newMeld: { shown: boolean; legal: boolean; onMeld: (card?: string) => void } | null; // your side only
  onAdd: (team: number, index: number, card?: string) => void;
}

/** The slot a meld's card stands for: "2S=3H" stands for 3H. */
const slotOf = (c: string): string => c.split("=")[1] ?? c.split("=")[0];

function rankOf(c: string): string {
  const p = parse(c);
  return p.rank === "JK" ? "JK" : p.rank;
}

/** Whether the meld's natural cards are hearts or diamonds (its compact chip is red). */
function redSuit(m: MeldView): boolean {
  const natural = m.cards.map((c) => c.split("=")[0]).find((c) => c !== "JK" && !c.startsWith("2"));
  return !!natural && /[HD]$/.test(natural);
}

/** A meld in a few characters: "4–8♥" for a run, "K" for a group of kings. */
export function meldShort(m: MeldView): string {
  if (!m.cards.length) return "";
  if (m.type === "run") {
    const first = slotOf(m.cards[0]);
    const last = slotOf(m.cards[m.cards.length - 1]);
    const suit = parse(m.cards.map((c) => c.split("=")[0]).find((c) => !c.startsWith("2") && c !== "JK") ?? first).suit;
    return `${rankOf(first)}–${rankOf(last)}${SYMBOL[suit] ?? ""}`;
  }
  const natural = m.cards.map((c) => c.split("=")[0]).find((c) => c !== "JK" && !c.startsWith("2")) ?? slotOf(m.cards[0]);
  return rankOf(natural);
}

function meldButton(z: ZoneInput, m: MeldView, i: number): VNode<any> {
  const cards = m.cards.map((c, k) => {
    const [card, slot] = c.split("=");
    return vFace(card, `mini ${slot ? "wild-slot" : ""}`, slot, { key: k, "aria-hidden": "true" }); // the meld's name says them
  });
  const wild = m.cards.some((c) => c.includes("="));
  return h("button", {
    key: `m${z.team}.${i}`, type: "button",
    class: `meld ${m.type} ${redSuit(m) ? "red-suit" : ""} ${m.canasta ? `canasta ${m.canasta}` : ""} ${z.last === i ? "last" : ""} ${z.targets.has(i) ? "target" : ""}`,
    "aria-label": (z.canAdd ? `${t("table.addTo")}: ` : "") + meldLabel(m), "aria-disabled": z.canAdd ? undefined : "true",
    "data-team": z.team, "data-meld": i, "data-fx": `meld-${z.team}-${i}`, id: `m${z.team}.${i}`,
    onclick: () => z.onAdd(z.team, i),
    ondragover: (e: DragEvent) => { if (z.canAdd) e.preventDefault(); },
    ondrop: (e: DragEvent) => { e.preventDefault(); const c = e.dataTransfer?.getData("text/card"); if (c) z.onAdd(z.team, i, c); },
  }, h("span", { class: "meld-cards" }, ...cards),
  h("span", { class: "meld-sum", "aria-hidden": "true", "data-n": meldShort(m) }),
  h("span", { class: "meld-size", "aria-hidden": "true", "data-n": `×${m.size}` }),
  wild ? h("span", { class: "meld-wild", "aria-hidden": "true", title: t("table.wildMarker"), "data-n": "★" }) : null,
  canastaBadge(m.canasta));
}

function newMeldTarget(z: ZoneInput): VNode<any> | null {
  const n = z.newMeld;
  if (!n || !n.shown) return null;
  return h("button", {
    key: "new-meld", type: "button", id: "new-meld", class: `new-meld ${n.legal ? "target" : ""}`,
    "data-target": "new-meld", onclick: () => n.onMeld(),
    ondragover: (e: DragEvent) => e.preventDefault(),
    ondrop: (e: DragEvent) => { e.preventDefault(); n.onMeld(e.dataTransfer?.getData("text/card") || undefined); },
  }, h("span", { "aria-hidden": "true", class: "plus" }, "+"), t("table.newMeld"));
}

export function meldsZone(z: ZoneInput): VNode<any> {
  const target = newMeldTarget(z);
  return h("section", {
    key: `zone${z.team}`, class: `melds ${z.ours ? "ours" : "theirs"} area-${z.area} ${z.compact ? "compact" : ""} ${z.compact > 1 ? "dense" : ""}`,
    "aria-label": t("table.meldsOf", { side: z.side }), "data-fx": `zone-${z.team}`, "data-region": "melds", "data-team": z.team,
  },
  h("h3", null, t("table.meldsOf", { side: z.side })),
  z.melds.length || target ? h("div", { class: "meld-row" }, ...z.melds.map((m, i) => meldButton(z, m, i)), target)
    : h("p", { class: "empty small" }, t("table.noMelds")));
}
