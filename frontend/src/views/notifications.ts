// The notifications centre: gifts to accept (and "Regalar" back), friend requests,
// challenges and level-ups.
import { get, post, errorText } from "../api";
import { h, mount } from "../dom";
import { dateTime, t, tk } from "../i18n";
import { app, applyLook, changed, refreshEquipped, refreshWallet, notifParams } from "../state";
import { socket } from "../socket";
import { spinner, toast } from "../ui";
import type { View } from "../view";

export function notificationsView(el: HTMLElement): View {
  let items: any[] | null = null;
  let error = "";
  const answered = new Set<number>();
  // Friend requests still waiting for an answer: one answered elsewhere (the friends
  // page, asking back) keeps its notification but no longer offers Accept / Decline.
  let pending = new Set<number>();

  let loads = 0; // only the latest load paints: an earlier one may answer after it

  async function load(): Promise<void> {
    const mine = ++loads;
    try {
      const [data, requests] = await Promise.all([get("/api/notifications?limit=50"), get("/api/friends/requests")]);
      if (mine !== loads) return;
      items = data.items;
      pending = new Set((requests.incoming ?? []).map((r: any) => r.id));
      app.unread = data.unread;
      changed();
    } catch (e) {
      if (mine !== loads) return;
      error = errorText(e);
    }
    render();
  }

  async function gift(n: any, accept: boolean): Promise<void> {
    try {
      await post(`/api/gifts/${n.payload.gift_id}/${accept ? "accept" : "decline"}`);
      answered.add(n.id);
      if (accept) accepted.add(n.id);
      toast(t(accept ? "gift.accepted" : "gift.declined"), "ok");
      refreshWallet();
      refreshEquipped();
      load();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  async function friend(n: any, accept: boolean): Promise<void> {
    try {
      await post(`/api/friends/requests/${n.payload.request_id}/${accept ? "accept" : "decline"}`);
      answered.add(n.id);  // the answer reads its notification on the server
      load();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  // An item accepted as a gift goes to "Mis cosas" unequipped: equipping it (and so
  // replacing what the player wears) is their choice, offered here.
  const wearable = (n: any) => n.kind === "gift" && /^(avatar|back|felt)_/.test(String(n.payload.sku ?? ""));
  const accepted = new Set<number>();
  const worn = new Set<number>();

  async function wear(n: any): Promise<void> {
    try {
      const data = await post("/api/me/equip", { sku: n.payload.sku });
      app.equipped = data.equipped;
      applyLook();
      worn.add(n.id);
      changed();
      toast(t("gift.equippedNow"), "ok");
      render();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  async function challenge(n: any, accept: boolean): Promise<void> {
    const id = n.payload.table_id;
    try {
      answered.add(n.id);
      app.invites = app.invites.filter((i) => i.table.id !== id);
      await post(`/api/notifications/${n.id}/read`).catch(() => undefined);
      await post(`/api/challenges/${id}/${accept ? "accept" : "decline"}`);
      if (accept) location.hash = `#/table/${id}`;
      else load();
    } catch (e) {
      toast(errorText(e), "error");
      load();
    }
  }

  async function readAll(): Promise<void> {
    try {
      await post("/api/notifications/read-all");
      load();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function actionsFor(n: any): HTMLElement | null {
    if (n.kind === "gift" && !n.read && !answered.has(n.id)) {
      return h("div", { class: "row" },
        h("button", { type: "button", class: "btn small primary", "data-action": "accept-gift", onclick: () => gift(n, true) }, t("common.accept")),
        h("button", { type: "button", class: "btn small", onclick: () => gift(n, false) }, t("common.decline")));
    }
    if (wearable(n) && accepted.has(n.id) && !worn.has(n.id) && !Object.values(app.equipped).includes(n.payload.sku)) {
      return h("div", { class: "row" },
        h("button", { type: "button", class: "btn small primary", "data-action": "equip-gift", onclick: () => wear(n) }, t("things.equip")),
        h("a", { class: "btn small pink", href: `#/profile/${n.payload.from_user_id}` }, t("gift.giveBack")));
    }
    if (n.kind === "challenge" && n.payload.table_id && !n.read && !answered.has(n.id)) {
      return h("div", { class: "row" },
        h("button", { type: "button", class: "btn small primary", "data-action": "accept-challenge", onclick: () => challenge(n, true) }, t("common.accept")),
        h("button", { type: "button", class: "btn small", "data-action": "decline-challenge", onclick: () => challenge(n, false) }, t("common.decline")));
    }
    if (n.kind === "gift" || n.kind === "gift_accepted") {
      const who = n.payload.from_user_id ?? n.payload.by_user_id;
      return who ? h("a", { class: "btn small pink", href: `#/profile/${who}` }, t("gift.giveBack")) : null;
    }
    if (n.kind === "friend_request" && pending.has(n.payload.request_id) && !answered.has(n.id)) {
      return h("div", { class: "row" },
        h("button", { type: "button", class: "btn small primary", onclick: () => friend(n, true) }, t("common.accept")),
        h("button", { type: "button", class: "btn small", onclick: () => friend(n, false) }, t("common.decline")));
    }
    return null;
  }

  function render(): void {
    if (!items) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("notif.title")), error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    // The list sits on a panel like every other page's (on the dark page it was unreadable).
    mount(el, h("section", { class: "page notifications" },
      h("h1", null, t("notif.title")),
      h("section", { class: "panel" },
        items.some((n) => !n.read) ? h("div", { class: "row end" },
          h("button", { type: "button", class: "btn small", id: "notif-read-all", onclick: readAll }, t("notif.readAll"))) : null,
        items.length ? h("ul", { class: "list notes" }, ...items.map((n) =>
        h("li", { class: `note ${n.read ? "read" : "unread"}`, "data-kind": n.kind },
          h("span", { class: "note-icon", "aria-hidden": "true" }, n.kind.startsWith("gift") ? "✉" : n.kind.startsWith("friend") ? "♥" : n.kind === "challenge" ? "⚑" : "★"),
          h("div", { class: "note-text" }, h("p", null, tk(`notif.${n.kind}`, "notif.generic", notifParams(n.payload))),
            h("time", { class: "muted small", datetime: n.created_at }, dateTime(new Date(n.created_at)))),
          actionsFor(n)))) : h("p", { class: "empty" }, t("notif.empty")))));
  }

  // A notification that arrives while the centre is open joins the list at once, with
  // its buttons (a gift to accept, a request to answer), not only as a passing toast.
  const off = socket.on("notification", () => load());
  load();
  return { render, destroy: off };
}
