// The table screen as one Preact tree: the head (scores, sound, motion, leave), the felt
// with the seats around it, the waiting room, the side panel (moves, chat) and the
// end-of-hand sheet. One screen, no page scroll: see the grid in styles.css.
import { playerName, tableTitle } from "../../words";
import { h, type VNode } from "preact";
import { botStrength, setBotStrength, STRENGTHS, strengthName } from "../../botStrength";
import { toast } from "../../ui";
import { fmt } from "../../dom";
import { sameCards, teamOf, type GameView, type HandResult } from "../../game";
import { t, tk } from "../../i18n";
import { app, avatarFor } from "../../state";
import { presetName } from "../../presets";
import { actionsView, handView, type Sort } from "./hand";
import { meldsZone } from "./melds";
import { enabled, setSpeed, speed, type Speed } from "./motion";
import { muertosView, pileView, stockView } from "./piles";
import { seatPos, seatView } from "./seats";
import { moveText, myResultView, scoreSheet, type MyResult } from "./sheet";
import { replayHash } from "../replay/link";
import { muted, setMuted } from "./sound";
import { vRaw } from "./vcards";
import { emotePicker } from "./emotes";
import { seatMenu } from "../seatMenu";
import { rematchView, type RematchState } from "./rematch";
import { openRules } from "../learn/open";

export interface Screen {
  tableId: string;
  meta: any;
  seat: number | null;
  game: GameView | null;
  legal: any[];
  legalPending: boolean; // asked for the legal commands, the answer not in yet
  selected: string[]; // hand keys ("7H#0")
  notice: string;
  noticeKind: "error" | "info";
  sort: Sort;
  last: any;
  freshKey: string | null;
  moves: any[];
  shownResult: HandResult | null;
  deadline: number | null;
  verifyState: "idle" | "busy" | any;
  missing: string;
  sideOpen: boolean;
  now: number;
  emotes: Record<number, { sku: string; until: number }>; // shown at each seat until
  emoteOpen: boolean;
  ownedEmotes: string[];
  rematch: RematchState | null;
  myResult?: MyResult | null; // the end sheet's own coins and XP (sheet.ts)
  compact: Map<number, number>; // per side: 1 its melds show compact (the fanned ones did not fit), 2 dense
}

export interface Actions {
  draw: () => void;
  takePile: () => void;
  meld: (card?: string) => void;
  discard: (card?: string) => void;
  addTo: (team: number, index: number, card?: string) => void;
  toggle: (key: string) => void;
  leave: () => void;
  playAgain: () => void;
  act: (path: string, body?: any) => Promise<boolean>;
  verify: (gameId: string) => void;
  repaint: () => void;
  chatEl: HTMLElement;
  chatUnread: (open: boolean) => number;
  myTurn: boolean;
  canDraw: boolean;
  canPlay: boolean;
  chosen: string[];
  seatName: (seat: number) => string;
  sendEmote: (sku: string) => void;
  rematch: () => void;
  declineRematch: () => void;
  setSide: (open: boolean) => void;
}

function sideName(s: Screen, team: number): string {
  const g = s.game;
  if (!g) return "";
  const seats = g.teams.map((tm, i) => (tm === team ? i : -1)).filter((i) => i >= 0);
  if (s.seat !== null && teamOf(g, s.seat) === team) return seats.length > 1 ? t("table.us") : t("table.you");
  return seats.map((i) => {
    const name = s.meta?.seats?.[i]?.name;
    return name ? playerName(name) : t("table.seatN", { n: i + 1 });
  }).join(" & ");
}

// ------------------------------------------------------------------ head

const SPEEDS: Speed[] = ["normal", "fast", "off"];

function headView(s: Screen, a: Actions): VNode<any> {
  const m = s.meta;
  const g = s.game;
  const quiet = muted();
  const sp = enabled() ? speed() : "off";
  return h("header", { key: "head", class: "table-head" },
    h("div", { class: "title" },
      h("h1", null, vRaw(tableTitle(m))),
      h("span", { class: "tags" },
        h("span", { class: "tag" }, presetName(m.preset)),
        h("span", { class: "tag" }, coinVNode(), h("span", { "data-raw": "" }, fmt(m.bet))),
        m.turbo ? h("span", { class: "tag turbo" }, t("lobby.turbo")) : null,
        g ? h("span", { class: "tag" }, t("table.handN", { n: g.hand_no })) : null)),
    g ? scoreBar(s, g) : null,
    h("div", { class: "head-tools" },
      h("button", {
        type: "button", id: "mute", class: "icon-btn tool", "aria-pressed": String(quiet),
        "aria-label": t(quiet ? "table.unmute" : "table.mute"), title: t(quiet ? "table.unmute" : "table.mute"),
        onclick: () => { setMuted(!quiet); a.repaint(); },
      }, icon(quiet ? "muted" : "sound")),
      h("button", {
        type: "button", id: "motion", class: "icon-btn tool", "data-speed": sp,
        "aria-label": `${t("table.motion")}: ${t(`motion.${sp}`)}`, title: `${t("table.motion")}: ${t(`motion.${sp}`)}`,
        onclick: () => { setSpeed(SPEEDS[(SPEEDS.indexOf(speed()) + 1) % SPEEDS.length]); a.repaint(); },
      }, icon(sp === "off" ? "still" : sp === "fast" ? "fast" : "motion")),
      h("button", {
        type: "button", id: "side-toggle", class: "icon-btn tool", "aria-expanded": String(s.sideOpen),
        "aria-controls": "table-side", "aria-label": t("table.side"), title: t("table.side"),
        onclick: () => a.setSide(!s.sideOpen),
      }, icon("chat"), unreadBadge(a.chatUnread(s.sideOpen))),
      h("button", {
        type: "button", id: "emote-toggle", class: "icon-btn tool", "aria-expanded": String(s.emoteOpen),
        "aria-controls": "emote-picker", "aria-label": t("table.emotes"), title: t("table.emotes"),
        onclick: () => { s.emoteOpen = !s.emoteOpen; a.repaint(); },
      }, icon("smile")),
      h("button", {
        type: "button", class: "btn ghost small", id: "leave", onclick: a.leave,
        title: t(s.seat !== null && m.status === "playing" ? "table.leave" : "table.backToLobby"),
      }, icon("exit"), h("span", { class: "lbl" }, t(s.seat !== null && m.status === "playing" ? "table.leave" : "table.backToLobby")))));
}

/** The count of chat lines not yet seen, on the chat button. */
function unreadBadge(n: number): VNode<any> | null {
  return n > 0 ? h("span", { class: "badge chat-unread", id: "chat-unread", "aria-label": t("nav.unread", { n }) }, n > 99 ? "99+" : fmt(n)) : null;
}

// Small line icons drawn as SVG paths (no icon font, no emoji font needed).
const ICONS: Record<string, string> = {
  sound: "M4 9h4l5-4v14l-5-4H4z M16 8.5a5 5 0 0 1 0 7 M18.5 6a8.5 8.5 0 0 1 0 12",
  muted: "M4 9h4l5-4v14l-5-4H4z M16 9l6 6 M22 9l-6 6",
  motion: "M5 12h10 M11 7l5 5-5 5 M3 7h3 M3 17h3",
  fast: "M3 6l7 6-7 6z M12 6l7 6-7 6z",
  still: "M6 5h4v14H6z M14 5h4v14h-4z",
  chat: "M4 5h16v10H9l-5 4z",
  smile: "M12 3a9 9 0 1 0 0.01 0z M8 14a5 5 0 0 0 8 0 M9 9.5h.01 M15 9.5h.01",
  exit: "M14 4h5v16h-5 M10 8l-4 4 4 4 M6 12h10",
};

function icon(name: string): VNode<any> {
  return h("svg", { viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true", class: `svg-ic ic-${name}` },
    h("path", { d: ICONS[name], fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" }));
}

function coinVNode(): VNode<any> {
  return h("span", { class: "ic coin", "aria-hidden": "true" });
}

function scoreBar(s: Screen, g: GameView): VNode<any> {
  const teams = g.melds.map((_, i) => i);
  // Pairs: "Us" and "Them" (the seats say who is who); otherwise each player's name.
  const pairs = g.teams.length === 4 && teams.length === 2 && s.seat !== null;
  const label = (tm: number) => pairs && tm !== teamOf(g, s.seat!) ? t("table.them") : sideName(s, tm);
  return h("div", { class: "scorebar", "aria-label": t("table.scores") },
    // On a narrow screen the name gives way, never the score.
    ...teams.map((tm) => h("span", { key: tm, class: "side-score" },
      h("span", { class: "side-name" }, `${label(tm)}:`),
      h("strong", { "data-raw": "" }, fmt(g.scores.totals[tm] ?? 0)))),
    s.meta.target_score ? h("span", { class: "muted" }, t("lobby.toPoints", { n: s.meta.target_score })) : null);
}

// ------------------------------------------------------------------ the felt

function seatOf(s: Screen, g: GameView, n: number): VNode<any> {
  const info = s.meta.seats[n] ?? { name: t("table.seatN", { n: n + 1 }) };
  const you = n === s.seat;
  const team = teamOf(g, n);
  return seatView({
    seat: n, pos: seatPos(g.players, s.seat, n), name: playerName(info.name),
    avatar: info.avatar ?? (you ? app.equipped.avatar : null) ?? "avatar_default",
    back: info.card_back ?? "back_default",
    emote: (s.emotes[n]?.until ?? 0) > Date.now() ? s.emotes[n].sku : null,
    onMenu: !you && !info.bot && info.user_id ? () => seatMenu({ user_id: info.user_id, name: info.name }) : null,
    count: g.hand_sizes[n] ?? 0,
    turn: g.turn === n && (g.phase === "draw" || g.phase === "play") && s.meta.status === "playing",
    you, partner: s.seat !== null && !you && team === teamOf(g, s.seat),
    bot: !!info.bot || !!info.abandoned, strength: info.bot ? info.bot_strength ?? null : null,
    rating: info.rating ?? null, provisional: !!info.provisional,
    awayUntil: !info.bot && !info.abandoned && info.connected === false ? info.grace_until ?? null : null,
    muerto: g.muertos[team]?.status ?? null, now: s.now,
  });
}

function status(s: Screen, g: GameView, a: Actions): string {
  if (s.meta.status === "finished" || g.phase === "over") return t("table.gameOver");
  if (g.phase === "hand_over") return t("table.handOver");
  if (s.seat === null) return t("table.watching", { who: a.seatName(g.turn) });
  if (g.turn !== s.seat) return t("table.waitFor", { who: a.seatName(g.turn) });
  return t(g.phase === "draw" ? "table.yourTurnDraw" : "table.yourTurnPlay");
}

/** What the chosen cards may do now: the melds they join, whether they make a meld. */
function targets(s: Screen, a: Actions): { melds: Map<number, Set<number>>; meld: boolean } {
  const melds = new Map<number, Set<number>>();
  let meld = false;
  if (!a.canPlay || !a.chosen.length) return { melds, meld };
  for (const c of s.legal) {
    if (c.type === "add" && sameCards(c.cards, a.chosen)) {
      if (!melds.has(c.team)) melds.set(c.team, new Set());
      melds.get(c.team)!.add(c.meld);
    }
    if (c.type === "meld" && sameCards(c.cards, a.chosen)) meld = true;
  }
  return { melds, meld };
}

function lastMeldOf(s: Screen, team: number): number | null {
  const e = s.last;
  if (!e) return null;
  if (e.type === "added" && e.team === team) return e.index;
  if (e.type === "melded" && e.meld?.owner === team) return (s.game?.melds[team]?.length ?? 0) - 1;
  return null;
}

function handRows(n: number): number {
  // One fanned row while each card shows at least its strip (44 px on a touch screen,
  // ~30 px with a mouse); otherwise two rows on a tall screen (a very long hand then
  // scrolls inside its area), one scrolling row on a short one.
  const coarse = window.matchMedia?.("(pointer: coarse)").matches;
  const strip = coarse ? 44 : 30;
  const side = window.innerWidth >= 1180 && window.innerHeight >= 600 ? 300 : 0;
  const w = Math.min(window.innerWidth - side, 1400) - 40;
  return (n - 1) * strip + cardWidth() > w && window.innerHeight > 600 ? 2 : 1;
}

// The hand's card width (set by the stylesheet's breakpoints), read once per viewport size.
let cardAt = { size: "", w: 60 };
function cardWidth(): number {
  const size = `${window.innerWidth}x${window.innerHeight}`;
  const el = document.getElementById("hand");
  if (cardAt.size !== size && el) cardAt = { size, w: parseFloat(getComputedStyle(el).getPropertyValue("--card-w")) || 60 };
  return cardAt.w;
}

function boardView(s: Screen, g: GameView, a: Actions): VNode<any> {
  const viewer = s.seat ?? 0;
  const myTeam = teamOf(g, viewer);
  const tg = targets(s, a);
  const zone = (team: number, area: string) => meldsZone({
    team, ours: s.seat !== null && team === myTeam, side: sideName(s, team), melds: g.melds[team] ?? [],
    canAdd: a.canPlay && (team === myTeam || !!s.meta.rules?.add_to_any_meld),
    targets: tg.melds.get(team) ?? new Set(), last: lastMeldOf(s, team), area, compact: s.compact.get(team) ?? 0,
    newMeld: s.seat !== null && team === myTeam ? { shown: a.canPlay && a.chosen.length >= 3, legal: tg.meld, onMeld: a.meld } : null,
    onAdd: a.addTo,
  });
  const others = Array.from({ length: g.players }, (_, n) => n).filter((n) => n !== viewer);
  const theirTeams = g.melds.map((_, i) => i).filter((tm) => tm !== myTeam);
  const takes = s.legal.filter((c) => c.type === "take_discard");
  const lastText = s.last ? moveText(s.last, a.seatName, s.seat) : null;
  const sel = a.chosen;
  return h("div", { key: "board", class: `board players-${g.players} ${s.seat === null ? "spectator" : ""} ${g.players > 2 ? "around" : "duel"}` },
    h("div", { key: "opponents", class: "opponents" }, ...others.map((n) => seatOf(s, g, n))),
    h("div", { key: "theirs", class: "zones theirs" }, ...theirTeams.map((tm) => zone(tm, "theirs"))),
    h("div", { key: "center", class: "center" },
      h("div", { class: "piles" },
        stockView(g.stock_size, a.canDraw, a.draw),
        pileView({
          g, pending: s.legalPending, drawPhase: a.canDraw, drawTarget: a.canDraw && g.discard.size > 0 && (g.discard.kind === "open" || takes.length > 0),
          dropTarget: a.canPlay && sel.length === 1, needs: takes.filter((c) => c.meld).map((c) => c.meld),
          selected: sel.length === 1 ? sel[0] : null, lastDiscard: s.last?.type === "discarded",
          onClick: () => (a.canPlay ? a.discard() : a.takePile()), onDrop: (c) => a.discard(c),
        }),
        muertosView(g, (tm) => sideName(s, tm))),
      lastText ? h("p", { class: "last-move", "aria-hidden": "true" }, lastText) : null,
      // A phone on its side: the status line under the piles, where it has room (the one
      // beside your seat, which screen readers announce, is then hidden from sight only).
      h("p", { class: `status status-center ${a.myTurn ? "mine" : ""}`, "aria-hidden": "true" }, status(s, g, a))),
    h("div", { key: "ours", class: "zones ours" }, zone(myTeam, "ours")),
    h("div", { key: "me", class: "me-row" },
      seatOf(s, g, viewer),
      h("p", { class: `status ${a.myTurn ? "mine" : ""}`, role: "status", id: "turn-status" }, status(s, g, a)),
      s.notice ? h("p", { class: `notice ${s.noticeKind}`, role: "alert", id: "notice" }, s.notice) : null),
    s.seat !== null ? handView({
      hand: g.hand ?? [], sort: s.sort, selected: new Set(s.selected), fresh: s.freshKey, rows: handRows((g.hand ?? []).length),
      onToggle: a.toggle, onKey: handKey,
    }) : null,
    s.seat !== null ? actionsView({
      canDraw: a.canDraw, canTake: a.canDraw && g.discard.size > 0, canPlay: a.canPlay, chosen: sel.length, meldLegal: tg.meld,
      sort: s.sort, draw: a.draw, take: a.takePile, meld: () => a.meld(), discard: () => a.discard(),
      toggleSort: () => { s.sort = s.sort === "suit" ? "rank" : "suit"; localStorage.setItem("buraco.sort", s.sort); a.repaint(); },
      clear: () => { s.selected = []; a.repaint(); },
    }) : null,
    s.seat !== null ? h("p", { class: "hint keys", id: "playable-hint" }, t("table.keysHint")) : null);
}

function handKey(e: KeyboardEvent, i: number): void {
  const cards = [...document.querySelectorAll<HTMLElement>("#hand .card")];
  if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
    e.preventDefault();
    cards[(i + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length]?.focus();
  }
}

// ------------------------------------------------------------------ waiting room

function waitingRoom(s: Screen, a: Actions): VNode<any> {
  const m = s.meta;
  const host = m.host === app.me?.id;
  const free = m.seats.filter((x: any) => !x).length;
  return h("section", { key: "waiting", class: "panel waiting", "aria-labelledby": "wait-title" },
    h("h2", { id: "wait-title" }, m.cut ? t("cut.waitingTitle") : t("table.waiting")),
    h("p", { class: "muted" }, m.cut ? t("cut.waitingLead") : t("table.waitingLead", { n: free })),
    h("ol", { class: "seat-list" }, ...m.seats.map((x: any, i: number) =>
      h("li", { key: i, class: x ? "taken" : "free" },
        h("span", { class: "avatar small", "aria-hidden": "true", "data-raw": "" }, x ? avatarFor(undefined, x.name) : "·"),
        x ? vRaw(x.name) : h("span", { class: "muted" }, t("table.freeSeat")),
        x?.bot ? h("span", { class: "tag tiny" }, t("table.bot"), x.bot_strength ? ` · ${strengthName(x.bot_strength)}` : "") : null))),
    h("div", { class: "row wrap" },
      host && free ? [
        h("label", { class: "sr-only", for: "bot-strength" }, t("table.botStrength")),
        h("select", {
          id: "bot-strength", title: t("table.botStrength"), value: botStrength(),
          onchange: (e: Event) => setBotStrength((e.target as HTMLSelectElement).value),
        }, ...STRENGTHS.map((x) => h("option", { value: x }, strengthName(x)))),
        h("button", { type: "button", class: "btn primary", id: "add-bots", onclick: () => a.act("bots", { bot_strength: botStrength() }) }, t("table.addBots"))] : null,
      s.seat === null && free && m.status === "waiting" ? h("button", { type: "button", class: "btn primary", id: "sit-here", onclick: () => a.act("sit") }, t("lobby.sit")) : null,
      s.seat !== null && !m.cut ? h("button", { type: "button", class: "btn", onclick: a.leave }, t("table.stand")) : null),
    host && !m.cut ? inviteForm(a) : null,
    m.private ? h("p", { class: "hint" }, t("table.privateHint")) : null);
}

function inviteForm(a: Actions): VNode<any> {
  return h("form", {
    class: "row", onsubmit: async (e: Event) => {
      e.preventDefault();
      const input = (e.target as HTMLFormElement).querySelector("input")!;
      const name = input.value.trim();
      if (!name) return;
      if (await a.act("invite", { usernames: [name] })) {
        toast(t("table.invited", { name }), "ok");
        input.value = "";
      }
    },
  }, h("input", { id: "invite-name", placeholder: t("table.inviteName"), "aria-label": t("table.inviteName"), autocomplete: "off" }),
  h("button", { type: "submit", class: "btn", id: "invite-send" }, t("table.invite")));
}

// ------------------------------------------------------------------ side and sheet

function sideView(s: Screen, a: Actions): VNode<any> {
  return h("aside", { key: "side", id: "table-side", class: `table-side ${s.sideOpen ? "open" : ""}`, "data-region": "chat" },
    h("button", {
      type: "button", class: "icon-btn side-close", "data-action": "close-chat", "aria-label": t("common.close"),
      title: t("common.close"), onclick: () => a.setSide(false),
    }, "✕"),
    h("button", {
      type: "button", id: "rules-help", class: "btn small ghost rules-help", title: t("learn.help"),
      onclick: () => openRules(s.meta?.preset ?? ""),
    }, "? ", t("learn.title")),
    h("section", { class: "panel moves", "aria-labelledby": "moves-title" },
      h("h2", { id: "moves-title" }, t("table.moves")),
      h("ol", { class: "move-log", "aria-live": "polite" }, ...s.moves.slice(0, 12).map((m, i) =>
        h("li", { key: `${s.moves.length - i}` }, moveText(m, a.seatName, s.seat))))),
    h("div", { class: "chat-host", ref: hostChat(a.chatEl) }));
}

const hosts = new WeakMap<HTMLElement, (el: HTMLElement | null) => void>();
function hostChat(node: HTMLElement): (el: HTMLElement | null) => void {
  // One stable ref per chat element, so Preact calls it once, not on every render.
  let fn = hosts.get(node);
  if (!fn) {
    fn = (el) => { if (el && node.parentElement !== el) el.replaceChildren(node); };
    hosts.set(node, fn);
  }
  return fn;
}

/** Why the hand ended; "you" and "your side" get their own sentences (a name does not
 * conjugate like "Tú"). */
function reasonText(s: Screen, r: HandResult, myTeam: number): string {
  if (r.reason === "closed" && r.closer >= 0 && r.closer === myTeam) {
    const partners = s.game!.teams.filter((tm) => tm === myTeam).length;
    return t(partners > 1 ? "result.reason.closedUs" : "result.reason.closedYou");
  }
  // n: the players on the closing side, so a pair takes the plural verb ("cerraron").
  const n = r.closer >= 0 ? s.game!.teams.filter((tm) => tm === r.closer).length : 1;
  return tk(`result.reason.${r.reason}`, "result.reason.other", { side: r.closer >= 0 ? sideName(s, r.closer) : "", n });
}

function resultOverlay(s: Screen, r: HandResult, a: Actions): VNode<any> {
  const g = s.game!;
  const myTeam = s.seat !== null ? teamOf(g, s.seat) : -1;
  const won = r.match_over ? r.match_winner : r.winner;
  const side = (tm: number) => sideName(s, tm);
  const n = g.teams.filter((tm) => tm === won).length; // a pair takes the plural verb
  const headline = myTeam >= 0
    ? t(won === myTeam ? (r.match_over ? "result.youWinMatch" : "result.youWinHand") : (r.match_over ? "result.theyWinMatch" : "result.theyWinHand"), { side: side(won), n })
    : t("result.sideWins", { side: side(won), n });
  const close = () => { s.shownResult = null; a.repaint(); };
  // The sheet fits the viewport: its body scrolls inside it when it must, and its foot
  // (the rematch offer, the next step) is always in sight, on a phone too.
  return h("div", { key: "result", class: "overlay result", role: "dialog", "aria-modal": "true", "aria-labelledby": "result-title" },
    h("div", { class: "dialog wide", "data-region": "sheet" },
      h("header", { class: "dialog-head" }, h("h2", { id: "result-title" }, headline)),
      h("div", { class: "dialog-body" },
        h("p", { class: "muted" }, reasonText(s, r, myTeam)),
        scoreSheet(r, side),
        r.match_over && s.seat !== null ? myResultView(s.myResult) : null,
        r.match_over ? fairness(s, a) : nextHandHint(s)),
      h("footer", { class: "dialog-foot" },
        r.match_over ? rematchView({
          r: s.rematch, seat: s.seat, now: s.now, name: a.seatName, offer: a.rematch, decline: a.declineRematch,
        }) : null,
        h("div", { class: "row end wrap" },
          r.match_over
            ? [h("a", { class: "btn", href: "#/", id: "back-lobby" }, t("result.backToLobby")),
              s.meta.game_id ? h("a", { class: "btn", href: replayHash(s.meta.game_id), id: "see-replay" }, t("replay.open")) : null,
              h("button", { type: "button", class: "btn primary", id: "play-again", onclick: a.playAgain }, t("result.playAgain"))]
            : h("button", { type: "button", class: "btn primary", id: "next-hand", onclick: close }, t("result.nextHand")),
          r.match_over ? h("button", { type: "button", class: "btn ghost", onclick: close }, t("result.seeTable")) : null))));
}

/** Between hands: the match's target, and whether the next hand is dealt or waits for
 * its cut (the hint changes as the cutter cuts). */
function nextHandHint(s: Screen): VNode<any> {
  const next = t(s.meta?.cut ? "result.nextHandAfterCut" : "result.nextHandDealt");
  return h("p", { class: "hint", id: "next-hand-hint" }, s.meta?.target_score
    ? `${t("result.matchTo", { n: fmt(s.meta.target_score) })} · ${next}` : next);
}

function fairness(s: Screen, a: Actions): VNode<any> {
  const v = s.verifyState;
  const gameId = s.meta.game_id;
  return h("section", { class: "fair", "aria-labelledby": "fair-title" },
    h("h3", { id: "fair-title" }, t("fair.title")),
    h("p", { class: "hint" }, t("fair.lead")),
    v === "busy" ? h("p", null, t("common.loading"))
      : v && typeof v === "object" ? [
        h("p", { class: v.ok ? "ok" : "error", id: "fair-result" }, t(v.ok ? "fair.ok" : "fair.bad")),
        h("ul", { class: "hashes" }, ...v.hands.map((x: any) =>
          h("li", { key: x.hand_no }, t("fair.hand", { n: x.hand_no }), " ", h("code", { "data-raw": "" }, x.commitment.slice(0, 16) + "…"), x.ok ? " ✔" : " ✘",
            x.server_seed ? h("small", { class: "fair-seed" }, " ", t("fair.seedCut", { seed: x.server_seed.slice(0, 16) + "…", cut: x.cut ?? "-" })) : null)))]
        : h("button", { type: "button", class: "btn", id: "verify", disabled: !gameId, onclick: () => a.verify(gameId) }, t("fair.check")));
}

export function tableScreen(s: Screen, a: Actions): VNode<any> {
  if (s.missing) {
    return h("section", { class: "panel" }, h("h1", null, t("table.missing")), h("p", null, tk(`err.${s.missing}`, "err.unknown")),
      h("a", { class: "btn", href: "#/" }, t("table.backToLobby")));
  }
  if (!s.meta) return h("section", { class: "panel" }, h("p", null, t("common.loading")));
  const g = s.game;
  const waiting = s.meta.status === "waiting" || s.meta.status === "starting" || !g || (!!s.meta.cut && !g.hand_no);
  return h("div", { class: `table-screen ${s.sideOpen ? "side-open" : ""}` },
    h("div", { key: "main", class: "table-main felt", "data-felt": s.meta.felt ?? "felt_default" },
      headView(s, a),
      s.emoteOpen ? emotePicker(s.ownedEmotes, a.sendEmote) : null,
      waiting ? waitingRoom(s, a) : boardView(s, g!, a)),
    sideView(s, a),
    // A tap outside the drawer closes it (a phone's drawer covers most of the felt).
    s.sideOpen ? h("div", { key: "backdrop", class: "side-backdrop", "aria-hidden": "true", onclick: () => a.setSide(false) }) : null,
    s.shownResult && g ? resultOverlay(s, s.shownResult, a) : null);
}

