// The menu on another player's seat at the table: their profile, a gift (any shop item,
// paid by you; the server's anti-farming and block rules apply), a friend request, block.
import { errorText, get, idem, post } from "../api";
import { h, mount } from "../dom";
import { t, tk } from "../i18n";
import { dialog, toast } from "../ui";

export interface SeatPerson { user_id: number; name: string }

async function run(fn: () => Promise<unknown>, ok: string, close: () => void): Promise<void> {
  try {
    await fn();
    toast(ok, "ok");
    close();
  } catch (e) {
    toast(errorText(e), "error");
  }
}

async function giftPicker(p: SeatPerson): Promise<void> {
  const list = h("ul", { class: "list", id: "seat-gifts" });
  const dlg = dialog(t("gift.pick"), list);
  let items: any[] = [];
  try {
    items = await get("/api/shop");
  } catch (e) {
    mount(list, h("li", { class: "error" }, errorText(e)));
    return;
  }
  mount(list, ...items.map((i) => h("li", { class: "row between" },
    h("span", null, tk(`item.${i.sku}`, "item.unknown")),
    h("button", {
      type: "button", class: "btn tiny pink", "data-gift": i.sku,
      onclick: () => run(() => post("/api/gifts", { to_user_id: p.user_id, sku: i.sku }, idem()),
        t("gift.sent", { name: p.name }), () => dlg.close()),
    }, t("gift.give")))));
}

export function seatMenu(p: SeatPerson): void {
  const item = (id: string, label: string, on: () => void, cls = "btn") =>
    h("button", { type: "button", class: cls, id, onclick: on }, label);
  const dlg = dialog(p.name, h("div", { class: "seat-menu", id: "seat-menu" },
    h("a", { class: "btn", id: "seat-profile", href: `#/profile/${p.user_id}`, onclick: () => dlg.close() }, t("profile.title")),
    item("seat-gift", t("gift.give"), () => { dlg.close(); giftPicker(p); }, "btn pink"),
    item("seat-friend", t("friends.add"), () => run(() => post("/api/friends/requests", { user_id: p.user_id }),
      t("friends.requestSent"), () => dlg.close())),
    item("seat-block", t("social.block"), () => run(() => post("/api/blocks", { user_id: p.user_id }),
      t("seat.blocked", { name: p.name }), () => dlg.close()), "btn ghost")));
}
