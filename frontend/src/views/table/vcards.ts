// Cards as Preact nodes (the table's renderer); cards.ts keeps the names and labels.
import { playerName } from "../../words";
import { h, type VNode } from "preact";
import { cardLabel, parse, suitClass, SYMBOL } from "../../cards";
import { t } from "../../i18n";

type Props = Record<string, unknown>;

function face(name: string): VNode<any>[] {
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

/** A card face that is not interactive (melds, the pile). */
export function vFace(name: string, cls = "", wildAs?: string, props: Props = {}): VNode<any> {
  const label = wildAs ? t("card.wildAs", { card: cardLabel(name) }) : cardLabel(name);
  return h("span", { class: `card ${suitClass(name)} ${cls}`, role: "img", "aria-label": label, ...props }, ...face(name));
}

/** A card of your hand: a focusable toggle button. */
export function vCardButton(name: string, cls: string, props: Props): VNode<any> {
  return h("button", { type: "button", class: `card ${suitClass(name)} ${cls}`, "aria-label": cardLabel(name), ...props }, ...face(name));
}

export function vBack(cls = "", props: Props = {}): VNode<any> {
  return h("span", { class: `card back ${cls}`, "aria-hidden": "true", ...props });
}

/** Text that is data (names): exempt from the translation checks; a guest's name is
 * worded in the reader's language (words.ts). */
export function vRaw(text: string, cls = ""): VNode<any> {
  return h("span", { "data-raw": "", class: cls || undefined }, playerName(text));
}

/** A plain DOM card for a flight (motion.ts): face up when the card is known. */
export function domCard(name: string | null, cls = ""): HTMLElement {
  const el = document.createElement("span");
  if (!name) {
    el.className = `card back ${cls}`;
    return el;
  }
  el.className = `card ${suitClass(name)} ${cls}`;
  const c = parse(name);
  const corner = document.createElement("span");
  corner.className = c.rank === "JK" ? "corner jk" : "corner";
  // Built node by node: the name comes from the server and is never parsed as markup.
  const [top, bottom] = c.rank === "JK" ? ["J", "K"] : [c.rank, SYMBOL[c.suit]];
  corner.append(top, document.createElement("br"), bottom);
  const pip = document.createElement("span");
  pip.className = c.rank === "JK" ? "pip joker" : "pip";
  pip.textContent = c.rank === "JK" ? "★" : SYMBOL[c.suit];
  el.append(corner, pip);
  return el;
}
