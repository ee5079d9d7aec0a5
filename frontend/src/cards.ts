// Cards drawn with CSS: a card is a button (keyboard and screen reader) or a plain face.
import { h, type Attrs } from "./dom";
import { t, type Key } from "./i18n";

export const SUITS = ["S", "H", "D", "C"] as const;
export const SYMBOL: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANK_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export interface Card {
  rank: string; // "A".."K", or "JK"
  suit: string; // S H D C, or "" for a joker
}

export function parse(name: string): Card {
  if (name === "JK") return { rank: "JK", suit: "" };
  return { rank: name.slice(0, -1), suit: name.slice(-1) };
}

export function isWild(name: string): boolean {
  return name === "JK" || name.startsWith("2") && name.length === 2;
}

export function cardLabel(name: string): string {
  const c = parse(name);
  if (c.rank === "JK") return t("card.joker");
  return t("card.name", { rank: t(`rank.${c.rank}` as Key), suit: t(`suit.${c.suit}` as Key) });
}

export function cardsLabel(names: string[]): string {
  return names.map(cardLabel).join(", ");
}

/** Sort keys: by suit then rank, or by rank then suit; jokers last. */
export function sortCards(names: string[], mode: "suit" | "rank"): string[] {
  const key = (n: string): number => {
    const c = parse(n);
    if (c.rank === "JK") return 10_000;
    const r = c.rank === "A" ? 14 : RANK_ORDER.indexOf(c.rank) + 1;
    const s = SUITS.indexOf(c.suit as any);
    return mode === "suit" ? s * 100 + r : r * 10 + s;
  };
  return [...names].sort((a, b) => key(a) - key(b));
}

function face(name: string): HTMLElement[] {
  const c = parse(name);
  if (c.rank === "JK") {
    return [
      h("span", { class: "corner jk", "aria-hidden": "true", "data-r": "J", "data-s": "K" }),
      h("span", { class: "pip joker", "aria-hidden": "true", "data-s": "★" }),
    ];
  }
  return [
    h("span", { class: "corner", "aria-hidden": "true", "data-r": c.rank, "data-s": SYMBOL[c.suit] }),
    h("span", { class: "pip", "aria-hidden": "true", "data-s": SYMBOL[c.suit] }),
  ];
}

export function suitClass(name: string): string {
  const c = parse(name);
  if (c.rank === "JK") return "joker";
  return c.suit === "H" || c.suit === "D" ? "red" : "black";
}

/** A card as a focusable button. */
export function cardButton(name: string, attrs: Attrs = {}, extraClass = ""): HTMLElement {
  return h(
    "button",
    { type: "button", class: `card ${suitClass(name)} ${extraClass}`, "aria-label": cardLabel(name), ...attrs },
    ...face(name),
  );
}

/** A card face that is not interactive (melds, the pile, the score sheet). */
export function cardFace(name: string, extraClass = "", wildAs?: string): HTMLElement {
  const label = wildAs ? t("card.wildAs", { card: cardLabel(name) }) : cardLabel(name);
  return h(
    "span",
    { class: `card ${suitClass(name)} ${extraClass}`, role: "img", "aria-label": label },
    ...face(name),
  );
}

export function cardBack(extraClass = "", label?: string): HTMLElement {
  return h("span", {
    class: `card back ${extraClass}`,
    role: label ? "img" : null,
    "aria-label": label ?? null,
    "aria-hidden": label ? null : "true",
  });
}
