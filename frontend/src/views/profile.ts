// A player's profile: level, games and wins by modality, equipped things, recent games,
// and "Retar", "Regalar", add friend, block.
import { get, post, del, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { dateTime, ratingNum, t, tk } from "../i18n";
import { playerName } from "../words";
import { socket } from "../socket";
import { spinner, toast, avatarImg } from "../ui";
import { challengeDialog } from "./social";
import { presetName } from "../presets";
import { giftPicker } from "./giftPicker";
import { replayLink } from "./replay/link";
import type { View } from "../view";

export function profileView(el: HTMLElement, userId: number): View {
  let p: any = null;
  let error = "";
  let loads = 0; // only the latest load paints: an earlier one may answer after it

  async function load(): Promise<void> {
    const mine = ++loads;
    try {
      const got = await get(`/api/profiles/${userId}`);
      if (mine !== loads) return;
      p = got;
    } catch (e) {
      if (mine !== loads) return;
      error = errorText(e);
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
          h("p", { class: "small muted" }, t("profile.xpLine", { xp: fmt(p.xp), next: fmt(p.next_level_xp) })),
          p.relation === "request_received" ? h("p", { id: "profile-wants" }, t("notif.friend_request", { name: playerName(p.nickname) })) : null),
        self ? null : h("div", { class: "row wrap" },
          p.can_challenge ? h("button", { type: "button", class: "btn primary", onclick: () => challengeDialog(p.nickname) }, t("social.challenge")) : null,
          p.can_gift ? h("button", { type: "button", class: "btn pink", id: "profile-gift", onclick: pickGift }, t("gift.give")) : null,
          p.relation === "none" ? h("button", { type: "button", class: "btn", onclick: () => call(() => post("/api/friends/requests", { user_id: p.user_id })) }, t("friends.add")) : null,
          p.relation === "request_sent" ? h("span", { class: "tag" }, t("friends.pending")) : null,
          // They asked first: asking back accepts (the server's rule), so Accept is that.
          p.relation === "request_received" ? h("button", { type: "button", class: "btn primary", id: "profile-accept", onclick: () => call(() => post("/api/friends/requests", { user_id: p.user_id }), t("friends.nowFriends")) }, t("common.accept")) : null,
          p.blocked ? h("button", { type: "button", class: "btn ghost", onclick: () => call(() => del(`/api/blocks/${p.user_id}`)) }, t("social.unblock"))
            : h("button", { type: "button", class: "btn ghost", onclick: () => call(() => post("/api/blocks", { user_id: p.user_id })) }, t("social.block")))),
      h("div", { class: "cols" },
        h("section", { class: "panel", "aria-labelledby": "st-title" },
          h("h2", { id: "st-title" }, t("profile.stats")),
          h("p", null, t("profile.gamesWins", { games: p.games, wins: p.wins })),
          p.modalities.length ? h("table", { class: "grid-table" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, t("lobby.modality")), h("th", { scope: "col" }, t("profile.games")), h("th", { scope: "col" }, t("profile.wins")))),
            h("tbody", null, ...p.modalities.map((m: any) => h("tr", null, h("td", null, presetName(m.preset)), h("td", { "data-raw": "" }, fmt(m.games)), h("td", { "data-raw": "" }, fmt(m.wins)))))) : null,
          p.ratings?.length ? h("table", { class: "grid-table", id: "profile-ratings" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, t("rating.family")), h("th", { scope: "col" }, t("rating.format")), h("th", { scope: "col" }, t("rating.title")))),
            h("tbody", null, ...p.ratings.map((r: any) => h("tr", null, h("td", null, tk(`rating.family.${r.family}`)), h("td", null, tk(`rating.format.${r.format}`)),
              h("td", { "data-raw": "", "data-rating": "", title: r.provisional ? t("rating.provisional") : null }, `${ratingNum(r.rating)}${r.provisional ? "?" : ""}`))))) : null),
        h("section", { class: "panel", "aria-labelledby": "rg-title" },
          h("h2", { id: "rg-title" }, t("profile.recent")),
          p.recent_games.length ? h("ul", { class: "list recent-games", id: "recent-games" }, ...p.recent_games.map((g: any) => gameLine(g, p.nickname))) :
            h("p", { class: "empty" }, t("profile.noGames"))))));
    // Tournament results: views/tournaments.ts, loaded on first use.
    const slot = el.querySelector(".profile")!.appendChild(h("div"));
    import("./tournaments").then((m) => slot.replaceWith(m.profileTournaments(p.user_id))).catch(() => undefined);
  }

  // This player asking to be friends, or accepting our request, while the profile is
  // open: its buttons follow at once.
  const off = socket.on("notification", (f) => {
    const who = f.payload?.from_user_id ?? f.payload?.user_id;
    if ((f.kind === "friend_request" || f.kind === "friend_accepted") && who === userId) load();
  });
  load();
  return { render, destroy: off };
}

/** One finished game: modality, result, opponents, score and date, coins won or lost. */
function gameLine(g: any, me: string): HTMLElement {
  const others = (g.players ?? []).filter((n: string) => n && n !== me).map(playerName);
  const totals: number[] | null = g.totals;
  const ours = totals ? totals[g.team] : null;
  const theirs = totals ? Math.max(...totals.filter((_, i) => i !== g.team)) : null;
  return h("li", { class: "game-line", "data-outcome": g.outcome },
    h("div", { class: "row between" },
      h("strong", null, presetName(g.preset), " · ", tk(`outcome.${g.outcome}`)),
      h("span", { class: g.coins_delta >= 0 ? "ok" : "error", "data-raw": "" }, `${g.coins_delta >= 0 ? "+" : ""}${fmt(g.coins_delta)}`)),
    h("div", { class: "row between small muted" },
      h("span", null,
        others.length ? t("profile.vs", { names: others.join(", ") }) : "",
        g.with_bots && !others.length ? t("profile.withBots") : "",
        ours !== null && theirs !== null && Number.isFinite(theirs) ? ` · ${t("profile.score", { us: fmt(ours), them: fmt(theirs) })}` : ""),
      h("time", { datetime: g.ended_at }, dateTime(new Date(g.ended_at)))),
    g.game_id ? h("div", { class: "row end" }, replayLink(g.game_id, "btn tiny")) : null);
}
