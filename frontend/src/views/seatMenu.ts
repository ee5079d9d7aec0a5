// The menu on another player's seat at the table: their profile, a gift (giftPicker.ts:
// priced, asked first, only what the server accepts), a friend request, block.
import { errorText, post } from "../api";
import { h } from "../dom";
import { t } from "../i18n";
import { dialog, toast } from "../ui";
import { giftPicker } from "./giftPicker";

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
