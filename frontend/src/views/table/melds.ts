// The melds on the felt, one zone per side; a zone that fills scrolls inside itself,
// never the page. A meld lights up when the chosen cards may join it.
import { h, type VNode } from "preact";
import { cardLabel } from "../../cards";
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
  onAdd: (team: number, index: number, card?: string) => void;
}

function meldButton(z: ZoneInput, m: MeldView, i: number): VNode<any> {
  const cards = m.cards.map((c, k) => {
    const [card, slot] = c.split("=");
    return vFace(card, `mini ${slot ? "wild-slot" : ""}`, slot, { key: k });
  });
  return h("button", {
    key: `m${z.team}.${i}`, type: "button",
    class: `meld ${m.canasta ? `canasta ${m.canasta}` : ""} ${z.last === i ? "last" : ""} ${z.targets.has(i) ? "target" : ""}`,
    "aria-label": (z.canAdd ? `${t("table.addTo")}: ` : "") + meldLabel(m), "aria-disabled": z.canAdd ? undefined : "true",
    "data-team": z.team, "data-meld": i, "data-fx": `meld-${z.team}-${i}`, id: `m${z.team}.${i}`,
    onclick: () => z.onAdd(z.team, i),
    ondragover: (e: DragEvent) => { if (z.canAdd) e.preventDefault(); },
    ondrop: (e: DragEvent) => { e.preventDefault(); const c = e.dataTransfer?.getData("text/card"); if (c) z.onAdd(z.team, i, c); },
  }, h("span", { class: "meld-cards" }, ...cards),
  canastaBadge(m.canasta) ?? h("span", { class: "meld-size", "data-raw": "" }, String(m.size)));
}

export function meldsZone(z: ZoneInput): VNode<any> {
  return h("section", {
    key: `zone${z.team}`, class: `melds ${z.ours ? "ours" : "theirs"} area-${z.area}`,
    "aria-label": t("table.meldsOf", { side: z.side }), "data-fx": `zone-${z.team}`,
  },
  h("h3", null, t("table.meldsOf", { side: z.side })),
  z.melds.length ? h("div", { class: "meld-row" }, ...z.melds.map((m, i) => meldButton(z, m, i)))
    : h("p", { class: "empty small" }, t("table.noMelds")));
}
