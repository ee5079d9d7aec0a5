// Dialogs shared by the lobby, profiles and friends: "Retar" (challenge) and "Regalar".
import { get, post, errorText } from "../api";
import { h, mount, fmt, raw } from "../dom";
import { t, tk } from "../i18n";
import { PRESET_NAMES } from "../presets";
import { dialog, field, toast } from "../ui";
import { presetName } from "../presets";
import { giftPicker } from "./giftPicker";

export function challengeDialog(username: string): void {
  const preset = h("select", { id: "ch-preset" }, ...PRESET_NAMES.map((p) => h("option", { value: p, selected: p === "cerrado" }, presetName(p)))) as HTMLSelectElement;
  const bet = h("input", { id: "ch-bet", type: "number", min: 6000, step: 1000, value: 6000 }) as HTMLInputElement;
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", {
    class: "form",
    onsubmit: async (e: Event) => {
      e.preventDefault();
      try {
        const table = await post("/api/challenges", { username, preset: preset.value, bet: Number(bet.value) || 6000 });
        dlg.close();
        toast(t("challenge.sent"), "ok");
        location.hash = `#/table/${table.id}`;
      } catch (err) {
        error.textContent = errorText(err);
      }
    },
  },
  h("p", null, t("challenge.intro"), " ", h("strong", { "data-raw": "" }, username)),
  field(t("create.modality"), preset),
  field(t("create.bet"), bet),
  error,
  h("button", { type: "submit", class: "btn primary", id: "ch-send" }, t("social.challenge")));
  const dlg = dialog(t("challenge.title"), form);
}

/** Choose a friend to receive the shop item ``sku`` (or a pack). */
export async function giftDialog(sku: string, done?: () => void): Promise<void> {
  const body = h("div", { class: "gift-picker" });
  const dlg = dialog(t("gift.title", { item: tk(`item.${sku}`, "item.unknown") }), body);
  let friends: any[] = [];
  try {
    friends = await get("/api/friends");
  } catch (err) {
    mount(body, h("p", { class: "error" }, errorText(err)));
    return;
  }
  if (!friends.length) {
    mount(body, h("p", { class: "empty" }, t("gift.noFriends")), h("a", { class: "btn", href: "#/friends", onclick: () => dlg.close() }, t("nav.friends")));
    return;
  }
  mount(body,
    h("p", null, t("gift.choose")),
    h("ul", { class: "list" }, ...friends.map((f) =>
      h("li", { class: "row between" },
        raw(f.nickname),
        h("button", {
          type: "button", class: "btn small pink", "data-friend": f.nickname,
          // The same question as every picker: the price first, or why it cannot go.
          onclick: () => { dlg.close(); giftPicker({ user_id: f.user_id, name: f.nickname }, sku, done); },
        }, t("gift.give"))))));
}

export function coins(n: number): string {
  return `${fmt(n)} ${t("wallet.coins")}`;
}
