// The gift picker of a seat at the table and of a profile. Every item of the shop with
// its picture and price; what the server would refuse now (already theirs, more than
// you have, money you did not win at tables) is shown with the reason and cannot be
// chosen. Choosing an item asks first, with its price, and only then spends.
import { errorText, get, idem, post } from "../api";
import { h, mount } from "../dom";
import { t, tk } from "../i18n";
import { dialog, toast } from "../ui";
import { itemPreview, price } from "./shop";

export interface GiftTo { user_id: number; name: string }

interface Option { sku: string; kind: string; price: number; currency: string; refused: string | null }

/** ``only``: one item chosen already (the shop's "Regalar"): straight to the question,
 * or to why it cannot be given; ``done`` runs after a gift was sent. */
export async function giftPicker(to: GiftTo, only?: string, done?: () => void): Promise<void> {
  const body = h("div", { class: "gift-picker", id: "gift-picker" });
  const dlg = dialog(t("gift.pickFor", { name: to.name }), body);
  let options: Option[] = [];

  async function load(): Promise<void> {
    try {
      options = await get(`/api/gifts/options?to_user_id=${encodeURIComponent(to.user_id)}`);
    } catch (e) {
      mount(body, h("p", { class: "error" }, errorText(e)));
      return;
    }
    const chosen = only ? options.find((o) => o.sku === only) : undefined;
    if (!only) list();
    else if (chosen && !chosen.refused) confirm(chosen);
    else mount(body, h("ul", { class: "list gift-options" }, ...options.filter((o) => o.sku === only).map(line)),
      h("div", { class: "row end" }, h("button", { type: "button", class: "btn", id: "gift-no", onclick: dlg.close }, t("common.close"))));
  }

  function line(o: Option): HTMLElement {
    const name = tk(`item.${o.sku}`, "item.unknown");
    return h("li", { class: `gift-line${o.refused ? " refused" : ""}`, "data-gift-line": o.sku },
      itemPreview(o),
      h("span", { class: "gift-name" }, name,
        o.refused ? h("span", { class: "hint", "data-why": o.refused }, tk(`gift.why.${o.refused}`, "gift.why.other")) : null),
      price(o),
      o.refused ? h("span", { class: "gift-slot" })
        : h("button", { type: "button", class: "btn tiny pink", "data-gift": o.sku, "aria-label": `${t("gift.give")}: ${name}`, onclick: () => confirm(o) }, t("gift.give")));
  }

  function list(): void {
    mount(body, h("ul", { class: "list gift-options" }, ...options.map(line)));
    body.querySelector<HTMLElement>("[data-gift]")?.focus();
  }

  function confirm(o: Option): void {
    const name = tk(`item.${o.sku}`, "item.unknown");
    const key = idem(); // one key per confirmation: a double click is one gift, paid once
    const ask = o.currency === "credits" ? "gift.confirmCredits" : "gift.confirmCoins";
    const yes = h("button", { type: "button", class: "btn pink", id: "gift-yes", onclick: () => send(o, key, yes as HTMLButtonElement) }, t("gift.confirmYes"));
    mount(body, h("div", { class: "gift-confirm", id: "gift-confirm" },
      h("div", { class: "gift-line" }, itemPreview(o), h("strong", { class: "gift-name" }, name), price(o)),
      h("p", { id: "gift-question" }, t(ask, { item: name, name: to.name, n: o.price })),
      h("p", { class: "hint" }, t("gift.refundNote")),
      h("div", { class: "row end" },
        h("button", { type: "button", class: "btn", id: "gift-no", onclick: only ? dlg.close : list }, t("common.cancel")),
        yes)));
    yes.focus();
  }

  async function send(o: Option, key: Record<string, string>, button: HTMLButtonElement): Promise<void> {
    if (button.disabled) return;
    button.disabled = true;
    try {
      await post("/api/gifts", { to_user_id: to.user_id, sku: o.sku }, key);
      dlg.close();
      toast(t("gift.sent", { name: to.name }), "ok");
      done?.();
    } catch (e) {
      toast(errorText(e), "error");
      await load(); // what changed meanwhile (a balance, their things) is shown again
    }
  }

  mount(body, h("p", { class: "muted" }, t("common.loading")));
  await load();
}
