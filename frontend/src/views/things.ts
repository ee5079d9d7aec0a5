// "Mis cosas": what you own, what is equipped, and equipping it.
import { get, post, errorText } from "../api";
import { h, mount } from "../dom";
import { t, tk } from "../i18n";
import { app, applyLook, changed } from "../state";
import { spinner, toast } from "../ui";
import { itemPreview } from "./shop";
import type { View } from "../view";

const SLOT: Record<string, string> = { avatar: "avatar", card_back: "card_back", felt: "felt", emote: "emote" };

export function thingsView(el: HTMLElement): View {
  let data: { items: any[]; equipped: Record<string, string> } | null = null;
  let error = "";

  async function load(): Promise<void> {
    try {
      data = await get("/api/me/things");
      app.equipped = data!.equipped;
      applyLook();
      changed();
    } catch (e) {
      error = errorText(e);
    }
    render();
  }

  async function equip(sku: string): Promise<void> {
    try {
      data = await post("/api/me/equip", { sku });
      app.equipped = data!.equipped;
      applyLook();
      changed();
      render();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function render(): void {
    if (!data) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("things.title")), error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    const equippedSkus = new Set(Object.values(data.equipped));
    mount(el, h("section", { class: "page things" },
      h("h1", null, t("things.title")),
      data.items.length ? h("ul", { class: "items" }, ...data.items.map((item) => {
        const on = equippedSkus.has(item.sku);
        return h("li", { class: `item ${on ? "equipped" : ""}`, "data-sku": item.sku },
          itemPreview(item),
          h("h3", null, tk(`item.${item.sku}`, "item.unknown")),
          h("p", { class: "muted small" }, tk(`kind.${item.kind}`)),
          on ? h("span", { class: "tag ok" }, "✔ ", t("things.equipped"))
            : SLOT[item.kind] ? h("button", { type: "button", class: "btn small", onclick: () => equip(item.sku) }, t("things.equip")) : null);
      })) : h("p", { class: "empty" }, t("things.empty"), " ", h("a", { href: "#/shop" }, t("nav.shop")))));
  }

  load();
  return { render };
}
