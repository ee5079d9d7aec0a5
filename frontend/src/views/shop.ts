// The shop: avatars, card backs, felts, emotes and packs; buy for yourself or "¡Regalar!".
import { get, post, idem, errorText } from "../api";
import { h, mount, fmt } from "../dom";
import { t, tk } from "../i18n";
import { changed, refreshEquipped, setWallet } from "../state";
import { spinner, toast, coinIcon, gemIcon, cosmeticUrl } from "../ui";
import { giftDialog } from "./social";
import type { View } from "../view";

const KIND_ORDER = ["avatar", "card_back", "felt", "emote", "coins_pack", "credits_pack"];

const DRAWN = new Set(["avatar", "emote", "card_back", "felt"]);

/** Cosmetics are shown by their own SVG drawing (the one the table uses), packs by an icon. */
export function itemPreview(item: { sku: string; kind: string }): HTMLElement {
  if (DRAWN.has(item.kind)) {
    return h("span", { class: `item-icon ${item.kind}`, "aria-hidden": "true" },
      h("img", { src: cosmeticUrl(item.sku), alt: "", width: 44, height: 44, decoding: "async" }));
  }
  if (item.kind === "coins_pack") return h("span", { class: "item-icon" }, coinIcon("big"));
  if (item.kind === "credits_pack") return h("span", { class: "item-icon" }, gemIcon("big"));
  return h("span", { class: `item-swatch ${item.sku}`, "aria-hidden": "true" });
}

export function price(item: { price: number; currency: string }): HTMLElement {
  return h("span", { class: "price" }, item.currency === "credits" ? gemIcon() : coinIcon(),
    h("span", { "data-raw": "" }, fmt(item.price)), h("span", { class: "sr-only" }, " ", tk(`wallet.${item.currency}`)));
}

export function shopView(el: HTMLElement, giftTo = ""): View {
  let items: any[] | null = null;
  let owned = new Set<string>();
  let error = "";

  async function load(): Promise<void> {
    try {
      items = await get("/api/shop");
      const things = await get("/api/me/things");
      owned = new Set(things.items.map((i: any) => i.sku));
    } catch (e) {
      error = errorText(e);
    }
    render();
  }

  async function buy(item: any): Promise<void> {
    try {
      const res = await post("/api/shop/buy", { sku: item.sku }, idem());
      setWallet(res.wallet);
      owned.add(item.sku);
      toast(t("shop.bought", { item: tk(`item.${item.sku}`, "item.unknown") }), "ok");
      changed();
      refreshEquipped();
      render();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function card(item: any): HTMLElement {
    const pack = item.kind.endsWith("_pack");
    const has = owned.has(item.sku);
    return h("li", { class: "item", "data-sku": item.sku },
      itemPreview(item),
      h("h3", null, tk(`item.${item.sku}`, "item.unknown")),
      h("p", { class: "muted small" }, tk(`kind.${item.kind}`)),
      price(item),
      h("div", { class: "row" },
        pack ? null : has
          ? h("span", { class: "tag ok" }, t("shop.owned"))
          : h("button", { type: "button", class: "btn small primary", "aria-label": `${t("shop.buy")}: ${tk(`item.${item.sku}`, "item.unknown")}`, onclick: () => buy(item) }, t("shop.buy")),
        h("button", { type: "button", class: "btn small pink", "aria-label": `${t("gift.give")}: ${tk(`item.${item.sku}`, "item.unknown")}`, onclick: () => giftDialog(item.sku) }, t("gift.give"))));
  }

  function render(): void {
    if (!items) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("shop.title")), error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    const kinds = KIND_ORDER.filter((k) => items!.some((i) => i.kind === k));
    mount(el, h("section", { class: "page shop" },
      h("h1", null, t("shop.title")),
      h("p", { class: "muted" }, giftTo ? t("shop.giftLead") : t("shop.lead")),
      ...kinds.map((k) => h("section", { class: "panel", "aria-labelledby": `kind-${k}` },
        h("h2", { id: `kind-${k}` }, tk(`kind.${k}`)),
        h("ul", { class: "items" }, ...items!.filter((i) => i.kind === k).map(card))))));
  }

  load();
  return { render };
}
