// A player's profile: level, games and wins by modality, equipped things, recent games,
// and "Retar", "Regalar", add friend, block.
import { get, post, del, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { t, tk } from "../i18n";
import { spinner, toast, avatarImg } from "../ui";
import { challengeDialog } from "./social";
import { presetName } from "./createTable";
import { giftPicker } from "./giftPicker";
import { replayLink } from "./replay/link";
import type { View } from "../view";

export function profileView(el: HTMLElement, userId: number): View {
  let p: any = null;
  let error = "";

  async function load(): Promise<void> {
    try {
      p = await get(`/api/profiles/${userId}`);
    } catch (e) {
      error = errorText(e);
    }
    render();
  }

  async function call(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
      await load();
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function pickGift(): void {
    // To this profile's player, friend or not (seed 000: "from any user's profile").
    giftPicker({ user_id: p.user_id, name: p.nickname });
  }

  function render(): void {
    if (!p) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("profile.title")), error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    const self = p.relation === "self";
    const pct = p.next_level_xp > p.level_xp ? Math.round(((p.xp - p.level_xp) / (p.next_level_xp - p.level_xp)) * 100) : 100;
    mount(el, h("section", { class: "page profile" },
      h("div", { class: "panel profile-head" },
        avatarImg(p.equipped?.avatar, "big"),
        h("div", null,
          h("h1", null, raw(p.nickname)),
          h("p", { class: "muted" }, t("profile.levelN", { n: p.level }), " · ", t(p.online ? "social.online" : "social.offline"), p.is_guest ? ` · ${t("profile.guest")}` : ""),
          h("div", { class: "xp", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": pct, "aria-label": t("profile.xp") },
            h("span", { style: `width:${pct}%` })),
          h("p", { class: "small muted" }, t("profile.xpLine", { xp: fmt(p.xp), next: fmt(p.next_level_xp) }))),
        self ? null : h("div", { class: "row wrap" },
          p.can_challenge ? h("button", { type: "button", class: "btn primary", onclick: () => challengeDialog(p.nickname) }, t("social.challenge")) : null,
          p.can_gift ? h("button", { type: "button", class: "btn pink", id: "profile-gift", onclick: pickGift }, t("gift.give")) : null,
          p.relation === "none" ? h("button", { type: "button", class: "btn", onclick: () => call(() => post("/api/friends/requests", { user_id: p.user_id })) }, t("friends.add")) : null,
          p.relation === "request_sent" ? h("span", { class: "tag" }, t("friends.pending")) : null,
          p.blocked ? h("button", { type: "button", class: "btn ghost", onclick: () => call(() => del(`/api/blocks/${p.user_id}`)) }, t("social.unblock"))
            : h("button", { type: "button", class: "btn ghost", onclick: () => call(() => post("/api/blocks", { user_id: p.user_id })) }, t("social.block")))),
      h("div", { class: "cols" },
        h("section", { class: "panel", "aria-labelledby": "st-title" },
          h("h2", { id: "st-title" }, t("profile.stats")),
          h("p", null, t("profile.gamesWins", { games: p.games, wins: p.wins })),
          p.modalities.length ? h("table", { class: "grid-table" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, t("lobby.modality")), h("th", { scope: "col" }, t("profile.games")), h("th", { scope: "col" }, t("profile.wins")))),
            h("tbody", null, ...p.modalities.map((m: any) => h("tr", null, h("td", null, presetName(m.preset)), h("td", { "data-raw": "" }, String(m.games)), h("td", { "data-raw": "" }, String(m.wins)))))) : null),
        h("section", { class: "panel", "aria-labelledby": "rg-title" },
          h("h2", { id: "rg-title" }, t("profile.recent")),
          p.recent_games.length ? h("ul", { class: "list" }, ...p.recent_games.map((g: any) =>
            h("li", { class: "row between" },
              h("span", null, presetName(g.preset), " · ", tk(`outcome.${g.outcome}`)),
              h("span", { class: g.coins_delta >= 0 ? "ok" : "error", "data-raw": "" }, `${g.coins_delta >= 0 ? "+" : ""}${fmt(g.coins_delta)}`),
              g.game_id ? replayLink(g.game_id, "btn tiny") : null))) :
            h("p", { class: "empty" }, t("profile.noGames"))))));
  }

  load();
  return { render };
}
