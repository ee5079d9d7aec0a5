// Emotes at the table: a small picker (the free basic set plus the emotes you own) and
// the emote shown at its sender's seat for a few seconds, for players and spectators.
import { h, type VNode } from "preact";
import { t, tk } from "../../i18n";

export const BASIC_EMOTES = ["basic_hola", "basic_bien", "basic_uy", "basic_gracias"];
export const EMOTE_SHOWN_MS = 4000;

export const cosmetic = (sku: string) => `/cosmetics/${sku}.svg`;

/** The emote's name for screen readers and the picker's tooltip. */
export function emoteName(sku: string): string {
  return tk(`item.${sku}`, "table.emote");
}

export function emoteBubble(sku: string): VNode<any> {
  return h("img", { class: "emote-bubble", src: cosmetic(sku), alt: emoteName(sku), "data-emote": sku, role: "img" });
}

export function emotePicker(owned: string[], send: (sku: string) => void): VNode<any> {
  const all = [...BASIC_EMOTES, ...owned.filter((e) => !BASIC_EMOTES.includes(e))];
  return h("div", { key: "emote-picker", class: "emote-picker", role: "group", id: "emote-picker", "aria-label": t("table.emotes") },
    ...all.map((sku) => h("button", {
      type: "button", class: "emote-btn", "data-emote": sku, title: emoteName(sku), "aria-label": emoteName(sku),
      onclick: () => send(sku),
    }, h("img", { src: cosmetic(sku), alt: "" }))));
}
