// Friends: your list (challenge, gift, profile), requests in and out, and finding players.
import { get, post, del, errorText } from "../api";
import { h, mount, raw } from "../dom";
import { t } from "../i18n";
import { socket } from "../socket";
import { spinner, toast, avatarImg } from "../ui";
import { challengeDialog } from "./social";
import type { View } from "../view";

export function friendsView(el: HTMLElement): View {
  let friends: any[] | null = null;
  let requests: { incoming: any[]; outgoing: any[] } = { incoming: [], outgoing: [] };
  let found: any[] = [];
  let query = ""; // what was last searched for
  let typed = ""; // what the search box holds: a re-render (a language change) keeps it
  let error = "";
  let loads = 0; // only the latest load paints: an earlier one may answer after it

  async function load(): Promise<void> {
    const mine = ++loads;
    try {
      const [f, r] = await Promise.all([get("/api/friends"), get("/api/friends/requests")]);
      if (mine !== loads) return;
      [friends, requests] = [f, r];
    } catch (e) {
      if (mine !== loads) return;
      error = errorText(e);
    }
    render();
  }

  async function search(e: Event): Promise<void> {
    e.preventDefault();
    typed = (document.getElementById("friend-q") as HTMLInputElement).value;
    query = typed.trim();
    if (!query) return;
    try {
      found = await get(`/api/players/search?q=${encodeURIComponent(query)}`);
    } catch (err) {
      toast(errorText(err), "error");
    }
    render();
  }

  async function call(fn: () => Promise<unknown>, ok?: string): Promise<void> {
    try {
      await fn();
      if (ok) toast(ok, "ok");
      await load();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function person(p: any, extra: (HTMLElement | null)[]): HTMLElement {
    return h("li", { class: "person" },
      h("a", { href: `#/profile/${p.user_id}`, class: "who" }, avatarImg(p.avatar, "small"), raw(p.nickname, "strong")),
      h("span", { class: `presence ${p.online ? "on" : ""}` }, t(p.online ? "social.online" : "social.offline")),
      h("span", { class: "muted small" }, t("profile.levelN", { n: p.level })),
      h("span", { class: "row" }, ...extra));
  }

  function render(): void {
    if (!friends) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("friends.title")), error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    // A request arriving while the player types a search repaints the page: the box
    // keeps its focus and caret.
    const box = document.activeElement as HTMLInputElement | null;
    const typing = box?.id === "friend-q" ? [box.selectionStart, box.selectionEnd] : null;
    paint();
    if (typing) {
      const again = document.getElementById("friend-q") as HTMLInputElement | null;
      again?.focus();
      again?.setSelectionRange(typing[0], typing[1]);
    }
  }

  function paint(): void {
    if (!friends) return;
    mount(el, h("section", { class: "page friends" },
      h("h1", null, t("friends.title")),
      h("div", { class: "cols" },
        h("section", { class: "panel", "aria-labelledby": "fr-list" },
          h("h2", { id: "fr-list" }, t("friends.list")),
          friends.length ? h("ul", { class: "list" }, ...friends.map((f) => person(f, [
            // A guest has no username to be challenged by yet (the server would refuse).
            f.guest ? null : h("button", { type: "button", class: "btn tiny", "data-challenge": f.nickname, onclick: () => challengeDialog(f.nickname) }, t("social.challenge")),
            h("a", { class: "btn tiny pink", href: `#/profile/${f.user_id}` }, t("gift.give")),
            h("button", { type: "button", class: "btn tiny ghost", onclick: () => call(() => del(`/api/friends/${f.user_id}`)) }, t("friends.remove")),
          ]))) : h("p", { class: "empty" }, t("friends.none"))),
        h("section", { class: "panel", "aria-labelledby": "fr-req" },
          h("h2", { id: "fr-req" }, t("friends.requests")),
          requests.incoming.length || requests.outgoing.length ? h("ul", { class: "list" },
            ...requests.incoming.map((r) => h("li", { class: "person" }, raw(r.sender_nickname, "strong"), h("span", { class: "muted small" }, t("friends.wantsYou")),
              h("span", { class: "row" },
                h("button", { type: "button", class: "btn tiny primary", "data-accept": r.sender_nickname, onclick: () => call(() => post(`/api/friends/requests/${r.id}/accept`), t("friends.nowFriends")) }, t("common.accept")),
                h("button", { type: "button", class: "btn tiny", onclick: () => call(() => post(`/api/friends/requests/${r.id}/decline`)) }, t("common.decline"))))),
            ...requests.outgoing.map((r) => h("li", { class: "person" }, raw(r.recipient_nickname, "strong"), h("span", { class: "muted small" }, t("friends.pending"))))) :
            h("p", { class: "empty" }, t("friends.noRequests")),
          h("h2", null, t("friends.find")),
          h("form", { class: "row", onsubmit: search },
            h("input", { id: "friend-q", value: typed, oninput: (e: Event) => { typed = (e.target as HTMLInputElement).value; }, "aria-label": t("friends.searchLabel"), placeholder: t("friends.searchLabel"), maxlength: 32 }),
            h("button", { type: "submit", class: "btn" }, t("friends.search"))),
          found.length ? h("ul", { class: "list" }, ...found.map((p) => person(p, foundActions(p)))) :
            query ? h("p", { class: "empty" }, t("friends.noneFound")) : null))));
  }

  /** What a search result offers, from the lists as they are now (they load again
   * after each answer and each friend notification): nothing for a friend, "request
   * sent" once asked, Accept when they asked first, else "Add friend". */
  function foundActions(p: any): HTMLElement[] {
    if (p.friend || friends?.some((f) => f.user_id === p.user_id)) return [];
    if (requests.outgoing.some((r) => r.recipient_id === p.user_id)) {
      return [h("span", { class: "muted small", "data-sent": p.nickname }, t("friends.pending"))];
    }
    const theirs = requests.incoming.find((r) => r.sender_id === p.user_id);
    if (theirs) {
      return [h("button", { type: "button", class: "btn tiny primary", "data-accept-found": p.nickname, onclick: () => call(() => post(`/api/friends/requests/${theirs.id}/accept`), t("friends.nowFriends")) }, t("common.accept"))];
    }
    return [h("button", { type: "button", class: "btn tiny primary", "data-add": p.nickname, onclick: () => call(() => post("/api/friends/requests", { user_id: p.user_id }), t("friends.requestSent")) }, t("friends.add"))];
  }

  // A request that arrives, or one of ours accepted, while the page is open shows at
  // once (its toast says so; the page must not then be the one place it is missing).
  const off = socket.on("notification", (f) => {
    if (f.kind === "friend_request" || f.kind === "friend_accepted") load();
  });
  load();
  return { render, destroy: off };
}
