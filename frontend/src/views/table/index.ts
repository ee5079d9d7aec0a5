// The table: seats, piles, melds, your hand and its actions, the turn clock, the last
// move, refusals in the player's language, the end-of-hand sheet, the fairness check,
// table chat and spectating. Every frame is applied and painted synchronously.
import { get, post, errorText } from "../api";
import { cardButton, cardFace, cardLabel, cardsLabel, sortCards } from "../cards";
import { h, mount, raw, fmt } from "../dom";
import { applyEvent, playableCards, sameCards, teamOf, type GameView, type HandResult } from "../game";
import { t, tk } from "../i18n";
import { socket } from "../socket";
import { app, avatarFor } from "../state";
import { dialog, toast, coinIcon } from "../ui";
import { chatPanel } from "./chat";
import { presetName } from "./createTable";
import { baseView, meldBody, meldLabel, moveText, muertoPiles, scoreSheet, seatPanel, stockPile } from "./tableParts";
import type { View } from "../main";

type Sort = "suit" | "rank";
// Paint-latency probes read by the browser tests: ms from a frame's arrival to the end of
// the animation frame that painted it, and the cost of each render.
const paintLog: number[] = ((window as any).__paintLog ??= []);
const renderLog: number[] = ((window as any).__renderLog ??= []);

export function tableView(el: HTMLElement, tableId: string): View {
  let meta: any = null;
  let seat: number | null = null;
  let game: GameView | null = null;
  let legal: any[] = [];
  let selected: string[] = [];
  let sort: Sort = (localStorage.getItem("buraco.sort") as Sort) || "suit";
  let notice = "";
  let noticeKind: "error" | "info" = "info";
  let last: any = null;
  let fresh: string | null = null;
  let moves: any[] = []; // events, worded at paint time in the current language
  let results: HandResult[] = [];
  let shownResult: HandResult | null = null;
  let deadline: number | null = null;
  let verifyState: "idle" | "busy" | any = "idle";
  let missing = "";
  let seq = 0;
  const chat = chatPanel(tableId, { compact: true });
  let arrivals: number[] = [];
  let frame = 0;
  let wantLegal = false;
  let chatPainted = false;

  // Frames are applied at once and painted in the next animation frame: a burst of
  // events (a bot's draw, meld and discard) costs one render, painted in one frame.
  function schedule(): void {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const start = performance.now();
      paint();
      const end = performance.now();
      renderLog.push(end - start);
      for (const at of arrivals) paintLog.push(end - at);
      arrivals = [];
      if (wantLegal) {
        wantLegal = false;
        socket.send({ type: "legal", table: tableId });
      }
    });
  }
  const offs: (() => void)[] = [];

  const mine = (f: any) => f.table === tableId;
  offs.push(socket.on("snapshot", (f) => {
    if (!mine(f)) return;
    meta = f.meta;
    seat = f.seat;
    game = f.game ?? null;
    deadline = meta.turn_deadline ?? null;
    missing = "";
    arrivals.push(performance.now());
    schedule();
    askLegal();
  }));
  offs.push(socket.on("event", (f) => {
    if (!mine(f)) return;
    arrivals.push(performance.now());
    onEvent(f);
    schedule();
    if (f.kind === "game") askLegal();
  }));
  offs.push(socket.on("legal", (f) => {
    if (!mine(f)) return;
    legal = f.commands ?? [];
    schedule();
  }));
  offs.push(socket.on("error", (f) => {
    if (f.cid) {
      if (!String(f.cid).startsWith(`${tableId}.`)) return;
      notice = tk(`err.${f.code}`, "err.unknown");
      noticeKind = "error";
    } else if (f.code === "not_invited" || f.code === "table_not_found") {
      missing = f.code;
    } else {
      return; // e.g. a "legal" asked for while not seated, or pacing: nothing to show
    }
    schedule();
  }));
  offs.push(socket.on("left", (f) => { if (mine(f)) location.hash = "#/"; }));
  socket.watch(tableId);
  const clockTimer = window.setInterval(tickClock, 250);

  function onEvent(f: any): void {
    if (f.kind === "table") {
      meta = f.event.meta;
      seat = f.event.seat;
      if (f.event.change === "game_over") askVerifySoon();
      return;
    }
    if (f.kind === "clock") {
      deadline = f.event.deadline;
      return;
    }
    const e = f.event;
    if (!game) game = baseView(meta, seat);
    game = applyEvent(game, e);
    if (e.type === "hand_ended") {
      const r: HandResult = { ...e, hand_no: game.hand_no };
      results.push(r);
      shownResult = r;
      deadline = null;
    }
    if (e.type === "hand_started") {
      selected = [];
      last = null;
    }
    if (e.seat !== undefined || e.type === "muerto_to_stock") last = e;
    fresh = e.type === "drew" && e.seat === seat ? e.card : e.type === "drew" ? null : fresh;
    if (e.seat === seat && (e.type === "melded" || e.type === "added" || e.type === "discarded" || e.type === "took_pile")) {
      notice = "";
    }
    if (e.type === "discarded" && e.seat === seat) selected = [];
    if (moveText(e, seatName)) moves = [e, ...moves].slice(0, 30);
    if (game.hand) selected = keepSelected(selected, game.hand);
  }

  function keepSelected(sel: string[], hand: string[]): string[] {
    const pool = [...hand];
    return sel.filter((c) => {
      const i = pool.indexOf(c);
      if (i < 0) return false;
      pool.splice(i, 1);
      return true;
    });
  }

  function askLegal(): void {
    legal = [];
    if (game && seat !== null && game.turn === seat && (game.phase === "draw" || game.phase === "play") && meta?.status === "playing") {
      wantLegal = true;
    }
  }

  function seatName(s: number): string {
    if (s === seat) return t("table.you");
    return meta?.seats?.[s]?.name ?? t("table.seatN", { n: s + 1 });
  }

  function sideName(team: number): string {
    if (!game) return "";
    const seats = game.teams.map((tm, s) => (tm === team ? s : -1)).filter((s) => s >= 0);
    if (seat !== null && teamOf(game, seat) === team) return seats.length > 1 ? t("table.us") : t("table.you");
    return seats.map((s) => meta?.seats?.[s]?.name ?? t("table.seatN", { n: s + 1 })).join(" & ");
  }

  // ------------------------------------------------------------------ commands

  function send(command: any): void {
    const cid = `${tableId}.${++seq}.${Math.random().toString(36).slice(2, 7)}`;
    notice = "";
    socket.send({ type: "command", table: tableId, cid, command });
  }

  const myTurn = () => !!game && seat !== null && game.turn === seat && meta?.status === "playing";
  const canDraw = () => myTurn() && game!.phase === "draw";
  const canPlay = () => myTurn() && game!.phase === "play";

  function draw(): void {
    if (!canDraw()) return explain("draw");
    send({ type: "draw" });
  }

  function takePile(depth = 1): void {
    if (!game || !canDraw()) return explain("draw");
    if (!game.discard.size) return say(t("err.pile_empty"));
    if (game.discard.kind === "open") return send({ type: "take_discard", depth: 1 });
    const options = legal.filter((c) => c.type === "take_discard" && (c.depth ?? 1) === depth);
    const chosen = selected.length ? options.filter((c) => c.meld && sameCards(c.meld, selected)) : options;
    if (selected.length && chosen.length === 0) {
      return send({ type: "take_discard", depth, meld: selected });
    }
    if (chosen.length === 1) return send(chosen[0]);
    if (!chosen.length) return say(t("table.pileNeedsPlay"));
    chooseDialog(t("table.takeHow"), chosen, (c) => c.meld
      ? t("table.takeWithMeld", { cards: cardsLabel(c.meld) })
      : t("table.takeOnMeld", { meld: meldLabel(game!.melds[c.add.team][c.add.meld]) }));
  }

  function meld(): void {
    if (!canPlay()) return explain("play");
    if (selected.length < 3) return say(t("table.selectThree"));
    const options = legal.filter((c) => c.type === "meld" && sameCards(c.cards, selected));
    if (options.length > 1) {
      return chooseDialog(t("table.wildWhere"), options, (c) => c.wild_as ? t("table.wildAs", { card: cardLabel(c.wild_as) }) : t("table.wildAuto"));
    }
    send(options[0] ?? { type: "meld", cards: selected });
  }

  function addTo(team: number, index: number): void {
    if (!canPlay()) return explain("play");
    if (!selected.length) return say(t("table.selectToAdd"));
    const options = legal.filter((c) => c.type === "add" && c.team === team && c.meld === index && sameCards(c.cards, selected));
    if (options.length > 1) {
      return chooseDialog(t("table.wildWhere"), options, (c) => c.wild_as ? t("table.wildAs", { card: cardLabel(c.wild_as) }) : t("table.wildAuto"));
    }
    send(options[0] ?? { type: "add", team, meld: index, cards: selected });
  }

  function discard(card?: string): void {
    if (!canPlay()) return explain("play");
    const c = card ?? (selected.length === 1 ? selected[0] : null);
    if (!c) return say(t("table.selectOne"));
    send({ type: "discard", card: c });
  }

  function explain(need: "draw" | "play"): void {
    if (!game || seat === null) return say(t("table.spectating"));
    if (game.turn !== seat) return say(t("err.not_your_turn"));
    say(t(need === "draw" ? "err.already_drew" : "err.must_draw_first"));
  }

  function say(text: string): void {
    notice = text;
    noticeKind = "error";
    paint();
  }

  function chooseDialog(title: string, options: any[], label: (c: any) => string): void {
    const dlg = dialog(title, h("div", { class: "choices" }, ...options.map((c) =>
      h("button", { type: "button", class: "btn", onclick: () => { dlg.close(); send(c); } }, label(c)))));
  }

  function toggle(card: string, index: number, order: string[]): void {
    const before = order.slice(0, index).filter((c) => c === card).length;
    const count = selected.filter((c) => c === card).length;
    if (count > before) {
      const i = selected.lastIndexOf(card);
      selected = [...selected.slice(0, i), ...selected.slice(i + 1)];
    } else {
      selected = [...selected, card];
    }
    notice = "";
    paint();
  }

  // ------------------------------------------------------------------ waiting room

  async function act(path: string, body: any = {}): Promise<void> {
    try {
      await post(`/api/tables/${tableId}/${path}`, body);
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  async function leave(): Promise<void> {
    if (meta?.status === "playing" && seat !== null && !meta.seats[seat]?.abandoned) {
      if (!window.confirm(t("table.leaveConfirm"))) return;
      await act("leave");
    } else if (meta?.status === "waiting" && seat !== null) {
      await act("stand");
    }
    location.hash = "#/";
  }

  function inviteForm(): HTMLElement {
    const input = h("input", { id: "invite-name", placeholder: t("table.inviteName"), "aria-label": t("table.inviteName"), autocomplete: "off" }) as HTMLInputElement;
    return h("form", {
      class: "row", onsubmit: async (e: Event) => {
        e.preventDefault();
        const name = input.value.trim();
        if (!name) return;
        try {
          await post(`/api/tables/${tableId}/invite`, { usernames: [name] });
          toast(t("table.invited", { name }), "ok");
          input.value = "";
        } catch (err) {
          toast(errorText(err), "error");
        }
      },
    }, input, h("button", { type: "submit", class: "btn", id: "invite-send" }, t("table.invite")));
  }

  function waitingRoom(): HTMLElement {
    const host = meta.host === app.me?.id;
    const free = meta.seats.filter((s: any) => !s).length;
    return h("section", { class: "panel waiting", "aria-labelledby": "wait-title" },
      h("h2", { id: "wait-title" }, t("table.waiting")),
      h("p", { class: "muted" }, t("table.waitingLead", { n: free })),
      h("ol", { class: "seat-list" }, ...meta.seats.map((s: any) =>
        h("li", { class: s ? "taken" : "free" },
          h("span", { class: "avatar small", "aria-hidden": "true", "data-raw": "" }, s ? avatarFor(undefined, s.name) : "·"),
          s ? raw(s.name) : h("span", { class: "muted" }, t("table.freeSeat")),
          s?.bot ? h("span", { class: "tag tiny" }, t("table.bot")) : null))),
      h("div", { class: "row wrap" },
        host && free ? h("button", { type: "button", class: "btn primary", id: "add-bots", onclick: () => act("bots") }, t("table.addBots")) : null,
        seat === null && free && meta.status === "waiting" ? h("button", { type: "button", class: "btn primary", id: "sit-here", onclick: () => act("sit") }, t("lobby.sit")) : null,
        seat !== null ? h("button", { type: "button", class: "btn", onclick: leave }, t("table.stand")) : null),
      host ? inviteForm() : null,
      meta.private ? h("p", { class: "hint" }, t("table.privateHint")) : null);
  }

  // ------------------------------------------------------------------ the board

  function opponents(g: GameView): HTMLElement[] {
    const me = seat ?? 0;
    const n = g.players;
    const out: HTMLElement[] = [];
    for (let k = seat === null ? 0 : 1; k < n; k++) {
      const s = (me + k) % n;
      const pos = seat === null ? ["bottom", "left", "top", "right"][k] ?? "top"
        : n === 2 ? "top" : n === 3 ? (k === 1 ? "left" : "right") : (["", "left", "top", "right"][k]);
      out.push(seatFor(g, s, pos));
    }
    return out;
  }

  function seatFor(g: GameView, s: number, pos: string): HTMLElement {
    const info = meta.seats[s] ?? { name: t("table.seatN", { n: s + 1 }), bot: false };
    const you = s === seat;
    return seatPanel({
      name: info.name, avatar: avatarFor(you ? app.equipped : undefined, info.name),
      count: g.hand_sizes[s] ?? 0, turn: g.turn === s && (g.phase === "draw" || g.phase === "play") && meta.status === "playing",
      bot: !!info.bot || !!info.abandoned, partner: seat !== null && !you && teamOf(g, s) === teamOf(g, seat),
      you, away: info.connected === false && !info.bot, pos, seat: s,
    });
  }

  function pileView(g: GameView): HTMLElement {
    const d = g.discard;
    const top = d.cards[d.cards.length - 1];
    const ready = canDraw() && d.size > 0;
    const lastDiscard = last?.type === "discarded";
    const label = d.size
      ? t(d.kind === "closed" ? "table.pileClosedLabel" : "table.pileLabel", { n: d.size, card: top ? cardLabel(top) : "" })
      : t("table.pileEmpty");
    const pile = h("button", {
      type: "button", id: "pile", class: `pile discard ${ready ? "ready" : ""} ${canPlay() && selected.length === 1 ? "drop-ready" : ""}`,
      "aria-label": canPlay() && selected.length === 1 ? t("table.discardHere", { card: cardLabel(selected[0]) }) : label,
      onclick: () => (canPlay() ? discard() : takePile()),
      ondragover: (e: DragEvent) => { if (canPlay()) e.preventDefault(); },
      ondrop: (e: DragEvent) => { e.preventDefault(); const c = e.dataTransfer?.getData("text/card"); if (c) discard(c); },
    },
    d.kind === "closed" || !d.size
      ? (top ? cardFace(top, lastDiscard ? "last" : "") : h("span", { class: "card ghost", "aria-hidden": "true" }))
      : h("span", { class: "fanned" }, ...d.cards.slice(-6).map((c, i, arr) => cardFace(c, i === arr.length - 1 && lastDiscard ? "last" : ""))),
    h("span", { class: "pile-count", "data-raw": "" }, String(d.size)),
    h("span", { class: "pile-name" }, t(d.kind === "closed" ? "table.pileClosed" : "table.pile")));
    return pile;
  }

  function meldsZone(g: GameView, team: number): HTMLElement {
    const ours = seat !== null && teamOf(g, seat) === team;
    const canAdd = canPlay() && (ours || !!meta.rules?.add_to_any_meld);
    const list = g.melds[team] ?? [];
    return h("section", { class: `melds ${ours ? "ours" : "theirs"}`, "aria-label": t("table.meldsOf", { side: sideName(team) }) },
      h("h3", null, t("table.meldsOf", { side: sideName(team) })),
      list.length ? h("div", { class: "meld-row" }, ...list.map((m, i) => {
        const isLast = last && ((last.type === "added" && last.team === team && last.index === i) ||
          (last.type === "melded" && last.meld?.owner === team && i === list.length - 1));
        return h("button", {
          type: "button", class: `meld ${m.canasta ? `canasta ${m.canasta}` : ""} ${isLast ? "last" : ""} ${canAdd && selected.length ? "target" : ""}`,
          "aria-label": (canAdd ? `${t("table.addTo")}: ` : "") + meldLabel(m), "aria-disabled": canAdd ? null : "true",
          "data-team": team, "data-meld": i,
          onclick: () => addTo(team, i),
          ondragover: (e: DragEvent) => { if (canAdd) e.preventDefault(); },
          ondrop: (e: DragEvent) => { e.preventDefault(); const c = e.dataTransfer?.getData("text/card"); if (c) { if (!selected.includes(c)) selected = [c]; addTo(team, i); } },
        }, ...meldBody(m));
      })) : h("p", { class: "empty small" }, t("table.noMelds")));
  }

  function handView(g: GameView): HTMLElement {
    const hand = sortCards(g.hand ?? [], sort);
    const playable = playableCards(legal);
    const pool = [...selected];
    return h("div", { class: "hand", role: "group", "aria-label": t("table.yourHand", { n: hand.length }), id: "hand" },
      ...hand.map((c, i) => {
        const pi = pool.indexOf(c);
        const isSel = pi >= 0;
        if (isSel) pool.splice(pi, 1);
        const cls = `${isSel ? "selected" : ""} ${playable.has(c) ? "playable" : ""} ${c === fresh ? "fresh" : ""}`;
        return cardButton(c, {
          "aria-pressed": String(isSel), "data-key": `h${i}`, "data-card": c, draggable: "true",
          title: playable.has(c) ? t("table.playable") : null,
          "aria-describedby": playable.has(c) ? "playable-hint" : null,
          onclick: () => toggle(c, i, hand),
          ondragstart: (e: DragEvent) => e.dataTransfer?.setData("text/card", c),
          onkeydown: (e: KeyboardEvent) => handKey(e, i),
        }, cls);
      }));
  }

  function handKey(e: KeyboardEvent, i: number): void {
    const cards = [...document.querySelectorAll<HTMLElement>("#hand .card")];
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      e.preventDefault();
      cards[(i + (e.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length]?.focus();
    }
  }

  function actions(g: GameView): HTMLElement {
    const btn = (id: string, label: string, key: string, on: () => void, enabled: boolean, cls = "") =>
      h("button", { type: "button", id, class: `btn ${cls}`, disabled: !enabled, "aria-keyshortcuts": key, onclick: on },
        label, h("kbd", { "aria-hidden": "true", "data-raw": "" }, key.toUpperCase()));
    return h("div", { class: "actions-bar", role: "toolbar", "aria-label": t("table.actions") },
      btn("act-draw", t("table.draw"), "r", draw, canDraw(), canDraw() ? "primary" : ""),
      btn("act-pile", t("table.takePile"), "p", () => takePile(), canDraw() && g.discard.size > 0),
      btn("act-meld", t("table.meld"), "b", meld, canPlay() && selected.length >= 3, "primary"),
      btn("act-discard", t("table.discard"), "d", () => discard(), canPlay() && selected.length === 1, canPlay() ? "danger" : ""),
      h("button", {
        type: "button", id: "act-sort", class: "btn ghost", "aria-keyshortcuts": "o",
        onclick: () => { sort = sort === "suit" ? "rank" : "suit"; localStorage.setItem("buraco.sort", sort); paint(); },
      }, t(sort === "suit" ? "table.sortRank" : "table.sortSuit")),
      selected.length ? h("button", { type: "button", class: "btn ghost", onclick: () => { selected = []; paint(); } }, t("table.clear")) : null);
  }

  function status(g: GameView): string {
    if (meta.status === "finished" || g.phase === "over") return t("table.gameOver");
    if (g.phase === "hand_over") return t("table.handOver");
    if (seat === null) return t("table.watching", { who: seatName(g.turn) });
    if (g.turn !== seat) return t("table.waitFor", { who: seatName(g.turn) });
    return t(g.phase === "draw" ? "table.yourTurnDraw" : "table.yourTurnPlay");
  }

  function scoreBar(g: GameView): HTMLElement {
    const teams = g.melds.map((_, i) => i);
    return h("div", { class: "scorebar", "aria-label": t("table.scores") },
      ...teams.map((tm) => h("span", { class: "side-score" }, sideName(tm), ": ",
        h("strong", { "data-raw": "" }, fmt(g.scores.totals[tm] ?? 0)))),
      meta.target_score ? h("span", { class: "muted" }, t("lobby.toPoints", { n: meta.target_score })) : null);
  }

  function resultOverlay(r: HandResult): HTMLElement {
    const g = game!;
    const myTeam = seat !== null ? teamOf(g, seat) : -1;
    const won = r.match_over ? r.match_winner : r.winner;
    const headline = myTeam >= 0
      ? t(won === myTeam ? (r.match_over ? "result.youWinMatch" : "result.youWinHand") : (r.match_over ? "result.theyWinMatch" : "result.theyWinHand"), { side: sideName(won) })
      : t("result.sideWins", { side: sideName(won) });
    const game_id = meta.game_id;
    return h("div", { class: "overlay result", role: "dialog", "aria-modal": "true", "aria-labelledby": "result-title" },
      h("div", { class: "dialog wide" },
        h("header", { class: "dialog-head" }, h("h2", { id: "result-title" }, headline)),
        h("div", { class: "dialog-body" },
          h("p", { class: "muted" }, tk(`result.reason.${r.reason}`, "result.reason.other", { side: r.closer >= 0 ? sideName(r.closer) : "" })),
          scoreSheet(r, sideName),
          r.match_over ? fairness(game_id) : h("p", { class: "hint" }, t("result.nextHandDealt")),
          h("div", { class: "row end wrap" },
            r.match_over
              ? [h("a", { class: "btn", href: "#/", id: "back-lobby" }, t("result.backToLobby")),
                h("button", { type: "button", class: "btn primary", id: "play-again", onclick: playAgain }, t("result.playAgain"))]
              : h("button", { type: "button", class: "btn primary", id: "next-hand", onclick: () => { shownResult = null; paint(); } }, t("result.nextHand")),
            r.match_over ? h("button", { type: "button", class: "btn ghost", onclick: () => { shownResult = null; paint(); } }, t("result.seeTable")) : null))));
  }

  function fairness(gameId: string | null): HTMLElement {
    const box = h("section", { class: "fair", "aria-labelledby": "fair-title" },
      h("h3", { id: "fair-title" }, t("fair.title")),
      h("p", { class: "hint" }, t("fair.lead")));
    if (verifyState === "busy") box.append(h("p", null, t("common.loading")));
    else if (verifyState && typeof verifyState === "object") {
      box.append(h("p", { class: verifyState.ok ? "ok" : "error", id: "fair-result" }, t(verifyState.ok ? "fair.ok" : "fair.bad")),
        h("ul", { class: "hashes" }, ...verifyState.hands.map((x: any) =>
          h("li", null, t("fair.hand", { n: x.hand_no }), " ", h("code", { "data-raw": "" }, x.commitment.slice(0, 16) + "…"), x.ok ? " ✔" : " ✘"))));
    } else {
      box.append(h("button", { type: "button", class: "btn", id: "verify", disabled: !gameId, onclick: () => verify(gameId!) }, t("fair.check")));
    }
    return box;
  }

  async function verify(gameId: string, tries = 4): Promise<void> {
    verifyState = "busy";
    paint();
    try {
      verifyState = await get(`/api/games/${gameId}/verify`);
    } catch (e) {
      if (tries > 1) {
        await new Promise((r) => setTimeout(r, 700));
        return verify(gameId, tries - 1);
      }
      verifyState = "idle";
      toast(errorText(e), "error");
    }
    paint();
  }

  function askVerifySoon(): void {
    /* the archive is written right after the game ends; the button retries briefly */
  }

  async function playAgain(): Promise<void> {
    try {
      const m = await post("/api/quickplay", { preset: meta.preset, players: meta.players, bots_after_seconds: 8 });
      location.hash = `#/table/${m.id}`;
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function board(g: GameView): HTMLElement {
    const myTeam = seat !== null ? teamOf(g, seat) : 0;
    const sides = g.melds.map((_, i) => i);
    const theirs = sides.filter((s) => s !== myTeam || seat === null);
    return h("div", { class: `board players-${g.players} ${seat === null ? "spectator" : ""}` },
      h("div", { class: "opponents" }, ...opponents(g)),
      h("div", { class: "center" },
        h("div", { class: "piles" },
          stockPile(g.stock_size, canDraw(), draw),
          pileView(g),
          muertoPiles(g, sideName)),
        h("div", { class: "all-melds" }, ...theirs.map((s) => meldsZone(g, s)))),
      seat !== null ? meldsZone(g, myTeam) : null,
      seat !== null ? h("div", { class: "me" },
        seatFor(g, seat, "bottom"),
        h("p", { class: `status ${myTurn() ? "mine" : ""}`, role: "status", id: "turn-status" }, status(g))) : h("p", { class: "status", role: "status", id: "turn-status" }, status(g)),
      notice ? h("p", { class: `notice ${noticeKind}`, role: "alert", id: "notice" }, notice) : null,
      seat !== null ? handView(g) : null,
      seat !== null ? actions(g) : null,
      seat !== null ? h("p", { class: "hint keys", id: "playable-hint" }, t("table.keysHint")) : null);
  }

  function header(): HTMLElement {
    return h("div", { class: "table-head" },
      h("div", null,
        h("h1", null, raw(meta.name)),
        h("span", { class: "tags" },
          h("span", { class: "tag" }, presetName(meta.preset)),
          h("span", { class: "tag" }, coinIcon(), h("span", { "data-raw": "" }, fmt(meta.bet))),
          meta.turbo ? h("span", { class: "tag turbo" }, t("lobby.turbo")) : null,
          meta.private ? h("span", { class: "tag" }, t("create.private")) : null,
          game ? h("span", { class: "tag" }, t("table.handN", { n: game.hand_no })) : null)),
      game ? scoreBar(game) : null,
      h("button", { type: "button", class: "btn ghost small", id: "leave", onclick: leave }, t(seat !== null && meta.status === "playing" ? "table.leave" : "table.backToLobby")));
  }

  function paint(): void {
    const active = document.activeElement as HTMLElement | null;
    const focusKey = active?.id || active?.getAttribute("data-key") || (active?.dataset.team !== undefined ? `m${active.dataset.team}.${active.dataset.meld}` : "");
    if (missing) {
      mount(el, h("section", { class: "panel" }, h("h1", null, t("table.missing")), h("p", null, tk(`err.${missing}`, "err.unknown")),
        h("a", { class: "btn", href: "#/" }, t("table.backToLobby"))));
      return;
    }
    if (!meta) {
      mount(el, h("section", { class: "panel" }, h("p", null, t("common.loading"))));
      return;
    }
    const g = game;
    mount(el,
      h("div", { class: "table-screen" },
        h("div", { class: "table-main felt" },
          header(),
          meta.status === "waiting" || meta.status === "starting" || !g ? waitingRoom() : board(g)),
        h("aside", { class: "table-side" },
          h("section", { class: "panel moves", "aria-labelledby": "moves-title" },
            h("h2", { id: "moves-title" }, t("table.moves")),
            h("ol", { class: "move-log", "aria-live": "polite" }, ...moves.slice(0, 12).map((m) => h("li", null, moveText(m, seatName))))),
          chat.el)),
      shownResult && g ? resultOverlay(shownResult) : null);
    if (!chatPainted) {
      chat.render();
      chatPainted = true;
    }
    tickClock();
    if (focusKey) {
      const next = document.getElementById(focusKey) ?? el.querySelector<HTMLElement>(`[data-key="${focusKey}"]`) ??
        (focusKey.startsWith("m") ? el.querySelector<HTMLElement>(`[data-team="${focusKey.slice(1).split(".")[0]}"][data-meld="${focusKey.split(".")[1]}"]`) : null);
      if (next && next !== document.activeElement) next.focus({ preventScroll: true });
    }
  }

  function tickClock(): void {
    if (!deadline) return;
    const left = Math.max(0, deadline - socket.serverNow());
    const total = meta?.turbo ? 12 : 30;
    el.querySelectorAll<HTMLElement>(".clock").forEach((c) => {
      const bar = c.firstElementChild as HTMLElement;
      bar.style.width = `${Math.min(100, (left / total) * 100)}%`;
      c.classList.toggle("low", left < 6);
      c.title = t("table.secondsLeft", { n: Math.ceil(left) });
    });
  }

  function onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (target.closest("input, textarea, select, [role=dialog]") || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    const map: Record<string, () => void> = {
      r: draw, p: () => takePile(), b: meld, d: () => discard(),
      o: () => { sort = sort === "suit" ? "rank" : "suit"; paint(); },
      escape: () => { selected = []; paint(); },
    };
    if (map[key] && game && seat !== null) {
      e.preventDefault();
      map[key]();
    }
  }
  document.addEventListener("keydown", onKey);

  return {
    render() {
      chatPainted = false; // the language changed: word the chat panel again
      paint();
    },
    destroy() {
      socket.unwatch(tableId);
      offs.forEach((off) => off());
      window.clearInterval(clockTimer);
      document.removeEventListener("keydown", onKey);
      chat.destroy();
    },
  };
}
