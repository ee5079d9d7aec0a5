// The table: its state, the socket frames that change it, the player's commands, and one
// render per animation frame with Preact (elements kept, so moves can be animated). The
// parts it draws live beside it: seats, piles, melds, hand, clock, motion, sound.
import { playerName } from "../../words";
import { Fragment, h as vh, render } from "preact";
import { get, post, errorText } from "../../api";
import { cardFace, cardLabel, parse, sortCards, SYMBOL } from "../../cards";
import { applyEvent, sameCards, type HandResult } from "../../game";
import { t, tk } from "../../i18n";
import { socket } from "../../socket";
import { confirmDialog, dialog, toast } from "../../ui";
import { h } from "../../dom";
import { botStrength } from "../../botStrength";
import { chatPanel } from "../chat";
import type { View } from "../../view";
import { tableScreen, type Screen } from "./board";
import { bankFromMeta, tickClock, vibrate } from "./clock";
import { hideIncoming, runFx } from "./fx";
import { keyed, type Sort } from "./hand";
import { meldLabel, meldShort } from "./melds";
import { enabled, finishAll, measure } from "./motion";
import { baseView, loadMyResult, moveText } from "./sheet";
import { play } from "./sound";
import { EMOTE_SHOWN_MS } from "./emotes";
import { isNewer, type RematchState } from "./rematch";
import { cutView } from "./cut";

// Paint-latency probes read by the browser tests: for each frame from the server, when it
// arrived, the timestamp of the animation frame that painted it and the ms until that
// render ended (test_play_hand.py checks it was the first animation frame after the
// arrival); and the cost of each render.
/** A choice of a sheet: its words on screen, its full name for a screen reader, the
 * hand cards it plays (and the pile's top card it takes). */
interface Choice {
  text: string;
  name: string;
  cards: string[];
  top?: string;
}

const shortName = (card: string): string => {
  const c = parse(card);
  return c.rank === "JK" ? "JK" : `${c.rank}${SYMBOL[c.suit]}`;
};

const paintLog: { at: number; frame: number; ms: number }[] = ((window as any).__paintLog ??= []);
const renderLog: number[] = ((window as any).__renderLog ??= []);

export function tableView(el: HTMLElement, tableId: string): View {
  const s: Screen = {
    tableId, meta: null, seat: null, game: null, legal: [], legalPending: false, selected: [], notice: "", noticeKind: "info",
    sort: (localStorage.getItem("buraco.sort") as Sort) || "suit", last: null, freshKey: null, moves: [],
    shownResult: null, deadline: null, verifyState: "idle", missing: "", sideOpen: false, now: socket.serverNow(),
    emotes: {}, emoteOpen: false, ownedEmotes: [], rematch: null, compact: new Map(),
  };
  const chat = chatPanel(tableId, { compact: true, onUnread: () => schedule() });
  let seq = 0;
  let arrivals: number[] = [];
  let frame = 0;
  let wantLegal = false;
  let fxQueue: any[] = [];
  let chatPainted = false;
  let lastSort = s.sort;
  let fxGen = 0; // moves rendered; a deferred animation of an older render is dropped
  let bank = 0; // the seat on turn's time bank after its deadline (clock.ts)
  let banking = false; // the deadline is its bank's end
  let bankCap = Infinity; // while banking, the bank's whole length (clock.ts)
  let resultFor = ""; // the game whose own result was asked for
  let sheetFor = ""; // the hand ("game#hand") whose sheet was last opened
  const handKey = () => `${s.meta?.game_id ?? ""}#${s.game?.hand_no ?? 0}`;

  // Frames are applied at once and painted in the next animation frame: a burst of
  // events (a bot's draw, meld and discard) costs one render, painted in one frame.
  function schedule(): void {
    if (frame) return;
    frame = requestAnimationFrame((ts) => {
      frame = 0;
      const start = performance.now();
      paint();
      const end = performance.now();
      renderLog.push(end - start);
      for (const at of arrivals) paintLog.push({ at, frame: ts, ms: end - at });
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
    s.meta = f.meta;
    s.seat = f.seat;
    s.game = f.game ?? null;
    s.deadline = s.meta.turn_deadline ?? null;
    ({ bank, banking, cap: bankCap } = bankFromMeta(s.meta, s.game));
    s.missing = "";
    // A table opened (or reloaded) after a hand ended shows that hand's sheet once:
    // between hands, while the next deal waits for its cut, and on a finished game, with
    // its rematch and replay. Closed, a later snapshot does not bring it back.
    if (f.result && handKey() !== sheetFor) {
      sheetFor = handKey();
      s.shownResult = { ...f.result, hand_no: s.game?.hand_no ?? 0 } as HandResult;
    }
    askMyResult();
    askRematch();
    fxQueue = [];
    finishAll(); // a fresh snapshot: whatever was moving is stale
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
    s.legal = f.commands ?? [];
    s.legalPending = false;
    schedule();
  }));
  offs.push(socket.on("error", (f) => {
    if (f.cid) {
      if (!String(f.cid).startsWith(`${tableId}.`)) return;
      s.notice = tk(`err.${f.code}`, "err.unknown");
      s.noticeKind = "error";
    } else if (f.code === "emote_rate_limited" || f.code === "emote_not_owned") {
      toast(tk(`err.${f.code}`, "err.unknown"));
      return;
    } else if (f.code === "not_invited" || f.code === "table_not_found") {
      s.missing = f.code;
    } else {
      // e.g. a "legal" asked for while not seated, or pacing: nothing to show, but an
      // unanswered ask must not keep the pile's hint waiting for ever.
      if (s.legalPending) {
        s.legalPending = false;
        schedule();
      }
      return;
    }
    schedule();
  }));
  offs.push(socket.on("left", (f) => { if (mine(f)) location.hash = "#/"; }));
  offs.push(socket.on("emote", (f) => {
    if (!mine(f) || typeof f.seat !== "number") return;
    s.emotes[f.seat] = { sku: f.emote, until: Date.now() + EMOTE_SHOWN_MS };
    schedule();
    window.setTimeout(schedule, EMOTE_SHOWN_MS + 50);
  }));
  get("/api/me/things").then((d) => {
    s.ownedEmotes = (d.items ?? []).filter((i: any) => i.kind === "emote").map((i: any) => i.sku);
  }).catch(() => undefined);

  offs.push(socket.on("rematch", (f) => {
    if (!mine(f)) return;
    showRematch(f as unknown as RematchState);
  }));

  // `follow`: a rematch that starts now takes the player to its table; one found
  // started when an old table is opened again does not.
  function showRematch(r: RematchState, follow = true): void {
    if (!isNewer(s.rematch, r)) return;
    s.rematch = r;
    if (follow && r.state === "started" && r.new_table) location.hash = `#/table/${r.new_table}`;
    schedule();
  }

  // A finished table shown (opened, reloaded, or its socket back): an offer made
  // meanwhile is shown as it stands, not as no offer at all.
  function askRematch(): void {
    if (s.meta?.status !== "finished" || s.seat === null) return;
    get(`/api/tables/${tableId}/rematch`).then((r) => showRematch(r as RematchState, false)).catch(() => undefined);
  }

  async function rematch(decline = false): Promise<void> {
    try {
      showRematch(await post(`/api/tables/${tableId}/rematch${decline ? "/decline" : ""}`, {}));
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function sendEmote(sku: string): void {
    socket.send({ type: "emote", table: tableId, emote: sku });
    s.emoteOpen = false;
    schedule();
  }
  socket.watch(tableId);
  const clockTimer = window.setInterval(tick, 250);

  /** The end sheet's own coins and XP, once the game is over (a seated player only). */
  function askMyResult(): void {
    const m = s.meta;
    if (!m || m.status !== "finished" || s.seat === null || !m.game_id || resultFor === m.game_id) return;
    resultFor = m.game_id;
    void loadMyResult(m.game_id).then((r) => {
      s.myResult = r ?? undefined;
      schedule();
    });
  }

  function seatName(n: number): string {
    if (n === s.seat) return t("table.you");
    const name = s.meta?.seats?.[n]?.name;
    return name ? playerName(name) : t("table.seatN", { n: n + 1 });
  }

  function log(e: any, say = false): void {
    const text = moveText(e, seatName, s.seat);
    if (!text) return;
    s.moves = [e, ...s.moves].slice(0, 30);
    if (say) toast(text);
  }

  function patchSeat(n: number, fields: Record<string, unknown>): void {
    if (!s.meta?.seats?.[n]) return;
    const seats = [...s.meta.seats];
    seats[n] = { ...seats[n], ...fields };
    s.meta = { ...s.meta, seats };
  }

  function onSeatFact(kind: string, e: any): void {
    if (kind === "clock") {
      s.deadline = e.deadline;
      // A bank that begins to drain is as long as the bank the turn had left.
      bankCap = e.banking ? (banking ? bankCap : bank) : Infinity;
      bank = Number(e.bank ?? 0);
      banking = !!e.banking;
    } else if (kind === "presence") {
      patchSeat(e.seat, { connected: e.connected, grace_until: e.grace_until });
      if (e.seat === s.seat) return;
      const secs = e.grace_until ? Math.max(0, Math.round(e.grace_until - socket.serverNow())) : 0;
      log({ type: e.connected ? "back" : "away", seat: e.seat, secs }, true);
    } else if (kind === "bot_takeover") {
      patchSeat(e.seat, { abandoned: true, grace_until: null });
      log({ type: "bot_takeover", seat: e.seat, reason: e.reason }, true);
    } else if (kind === "timeout") {
      log({ type: "timeout", seat: e.seat, you: e.seat === s.seat }, true);
    }
  }

  function onEvent(f: any): void {
    if (f.kind === "table") {
      s.meta = { ...f.event.meta, turn_deadline: s.deadline };
      s.seat = f.event.seat;
      askMyResult();
      return;
    }
    if (f.kind !== "game") return onSeatFact(f.kind, f.event);
    const e = { ...f.event };
    if (!s.game) s.game = baseView(s.meta, s.seat);
    const before = s.game;
    s.game = applyEvent(before, e);
    if (e.type === "melded" || e.type === "added") {
      const old = e.type === "added" ? before.melds[e.team]?.[e.index] : null;
      e.newCanasta = !!e.meld?.canasta && !old?.canasta;
    }
    if (e.type === "hand_ended") {
      s.shownResult = { ...e, hand_no: s.game.hand_no } as HandResult;
      sheetFor = handKey();
      s.deadline = null;
    }
    if (e.type === "hand_started") {
      s.compact = new Map();
      s.selected = [];
      s.last = null;
    }
    if (e.seat !== undefined || e.type === "muerto_to_stock") s.last = e;
    if (e.type === "drew") s.freshKey = e.seat === s.seat && e.card ? freshKeyOf(e.card) : null;
    if (e.seat === s.seat && ["melded", "added", "discarded", "took_pile"].includes(e.type)) s.notice = "";
    if (e.type === "discarded" && e.seat === s.seat) s.selected = [];
    log(e);
    if (s.game.hand) s.selected = keepSelected(s.selected, s.game.hand);
    fxQueue.push(e);
  }

  function freshKeyOf(card: string): string {
    const n = (s.game?.hand ?? []).filter((c) => c === card).length;
    return `${card}#${n - 1}`;
  }

  function keepSelected(sel: string[], hand: string[]): string[] {
    const keys = new Set(keyed(hand).map((k) => k.key));
    return sel.filter((k) => keys.has(k));
  }

  function askLegal(): void {
    s.legal = [];
    s.legalPending = false;
    const g = s.game;
    if (g && s.seat !== null && g.turn === s.seat && (g.phase === "draw" || g.phase === "play") && s.meta?.status === "playing") {
      wantLegal = true;
      s.legalPending = true;
    }
  }

  // ------------------------------------------------------------------ commands

  const chosen = () => s.selected.map((k) => k.split("#")[0]);
  const myTurn = () => !!s.game && s.seat !== null && s.game.turn === s.seat && s.meta?.status === "playing";
  const canDraw = () => myTurn() && s.game!.phase === "draw";
  const canPlay = () => myTurn() && s.game!.phase === "play";

  function send(command: any): void {
    const cid = `${tableId}.${++seq}.${Math.random().toString(36).slice(2, 7)}`;
    s.notice = "";
    socket.send({ type: "command", table: tableId, cid, command });
  }

  function draw(): void {
    if (!canDraw()) return explain("draw");
    send({ type: "draw" });
  }

  function takePile(depth = 1): void {
    const g = s.game;
    if (!g || !canDraw()) return explain("draw");
    if (!g.discard.size) return say(t("err.pile_empty"));
    if (g.discard.kind === "open") return send({ type: "take_discard", depth: 1 });
    const sel = chosen();
    const options = s.legal.filter((c) => c.type === "take_discard" && (c.depth ?? 1) === depth);
    const picked = sel.length ? options.filter((c) => c.meld && sameCards(c.meld, sel)) : options;
    if (sel.length && picked.length === 0) return send({ type: "take_discard", depth, meld: sel });
    if (picked.length === 1) return send(picked[0]);
    if (!picked.length) return say(t("table.pileNeedsPlay"));
    const top = g.discard.cards[g.discard.cards.length - 1];
    chooseSheet(t("table.takeHow"), picked, (c) => c.meld ? {
      text: t("table.takeWithMeld", { cards: c.meld.map(shortName).join(" ") }),
      name: t("table.takeWithMeld", { cards: c.meld.map(cardLabel).join(", ") }),
      cards: sortCards(c.meld, "suit"), top,
    } : {
      text: t("table.takeOnMeld", { meld: meldShort(g.melds[c.add.team][c.add.meld]) }),
      name: t("table.takeOnMeld", { meld: meldLabel(g.melds[c.add.team][c.add.meld]) }),
      cards: [], top,
    });
  }

  /** A card dragged onto a target joins the chosen ones. */
  function withCard(card?: string): void {
    if (!card || chosen().includes(card)) return;
    const key = keyed(s.game!.hand ?? []).find((k) => k.card === card && !s.selected.includes(k.key))?.key;
    if (key) s.selected = [...s.selected, key];
  }

  /** Whether playing these cards ends the hand: they empty your hand and your side's
   * muerto is not waiting (with it waiting, an empty hand picks the muerto up instead). */
  function endsHand(cards: string[]): boolean {
    const g = s.game;
    if (!g || s.seat === null || cards.length < (g.hand?.length ?? Infinity)) return false;
    return g.muertos[g.teams[s.seat]]?.status !== "table";
  }

  /** A move that ends the hand asks once (the app's own sheet, never the browser's box). */
  async function endsHandOk(cards: string[]): Promise<boolean> {
    if (!endsHand(cards)) return true;
    return confirmDialog(t("table.endHandTitle"), t("table.endHandAsk"), t("table.endHandOk"));
  }

  async function meld(card?: string): Promise<void> {
    if (!canPlay()) return explain("play");
    withCard(card);
    const sel = chosen();
    if (sel.length < 3) return say(t("table.selectThree"));
    const options = s.legal.filter((c) => c.type === "meld" && sameCards(c.cards, sel));
    if (!(await endsHandOk(sel))) return;
    if (options.length > 1) return wildDialog(options);
    send(options[0] ?? { type: "meld", cards: sel });
  }

  async function addTo(team: number, index: number, card?: string): Promise<void> {
    if (!canPlay()) return explain("play");
    if (card && !chosen().includes(card)) s.selected = [keyed(s.game!.hand ?? []).find((k) => k.card === card)!.key];
    const sel = chosen();
    if (!sel.length) return say(t("table.selectToAdd"));
    const options = s.legal.filter((c) => c.type === "add" && c.team === team && c.meld === index && sameCards(c.cards, sel));
    if (!(await endsHandOk(sel))) return;
    if (options.length > 1) return wildDialog(options);
    send(options[0] ?? { type: "add", team, meld: index, cards: sel });
  }

  async function discard(card?: string): Promise<void> {
    if (!canPlay()) return explain("play");
    const sel = chosen();
    const c = card ?? (sel.length === 1 ? sel[0] : null);
    if (!c) return say(t("table.selectOne"));
    if (!(await endsHandOk([c]))) return;
    send({ type: "discard", card: c });
  }

  function explain(need: "draw" | "play"): void {
    if (!s.game || s.seat === null) return say(t("table.spectating"));
    if (s.game.turn !== s.seat) return say(t("err.not_your_turn"));
    say(t(need === "draw" ? "err.already_drew" : "err.must_draw_first"));
  }

  function say(text: string): void {
    s.notice = text;
    s.noticeKind = "error";
    paint();
  }

  function wildDialog(options: any[]): void {
    chooseSheet(t("table.wildWhere"), options, (c) => {
      const text = c.wild_as ? t("table.wildAs", { card: cardLabel(c.wild_as) }) : t("table.wildAuto");
      return { text, name: text, cards: c.wild_as ? [c.wild_as] : [] };
    });
  }

  /** A sheet of choices, each distinct one listed once (the legal feed may list the same
   * move twice, e.g. once per place of a wild card it does not need): a tap plays it. */
  function chooseSheet(title: string, options: any[], label: (c: any) => Choice): void {
    const seen = new Map<string, Choice & { c: any }>();
    for (const c of options) {
      const l = label(c);
      if (!seen.has(l.name)) seen.set(l.name, { c, ...l });
    }
    const dlg = dialog(title, h("div", { class: "choices", "data-region": "choices" }, ...[...seen.values()].map((o, i) =>
      h("button", { type: "button", class: "btn choice", "data-choice": String(i), "data-name": o.name, onclick: () => { dlg.close(); send(o.c); } },
        o.cards.length || o.top ? h("span", { class: "choice-cards", "aria-hidden": "true" },
          ...(o.top ? [cardFace(o.top, "mini top")] : []), ...o.cards.map((x) => cardFace(x, "mini"))) : null,
        h("span", { class: "choice-text", "aria-hidden": "true" }, o.text), h("span", { class: "sr-only" }, o.name)))), { sheet: true });
  }

  function toggle(key: string): void {
    s.selected = s.selected.includes(key) ? s.selected.filter((k) => k !== key) : [...s.selected, key];
    s.notice = "";
    paint();
  }

  async function act(path: string, body: any = {}): Promise<boolean> {
    try {
      await post(`/api/tables/${tableId}/${path}`, body);
      return true;
    } catch (e) {
      toast(errorText(e), "error");
      return false;
    }
  }

  async function leave(): Promise<void> {
    const m = s.meta;
    if (m?.status === "playing" && s.seat !== null && !m.seats[s.seat]?.abandoned) {
      const ok = await confirmDialog(t("table.leaveTitle"), t("table.leaveConfirm"), t("table.leaveOk"));
      if (!ok) return;
      await act("leave");
    } else if (m?.status === "waiting" && s.seat !== null) {
      await act("stand");
    }
    location.hash = "#/";
  }

  async function playAgain(): Promise<void> {
    try {
      const m = await post("/api/quickplay", {
        preset: s.meta.preset, players: s.meta.players, bots_after_seconds: 8, bot_strength: botStrength(),
        match: (s.meta.target_score ?? 0) > 0,
      });
      location.hash = `#/table/${m.id}`;
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  async function verify(gameId: string, tries = 4): Promise<void> {
    s.verifyState = "busy";
    paint();
    try {
      s.verifyState = await get(`/api/games/${gameId}/verify`);
    } catch (e) {
      if (tries > 1) {
        await new Promise((r) => setTimeout(r, 700));
        return verify(gameId, tries - 1);
      }
      s.verifyState = "idle";
      toast(errorText(e), "error");
    }
    paint();
  }

  // ------------------------------------------------------------------ painting

  // The side panel (moves and chat) is a drawer over the felt on small screens: a close
  // control, Escape, a tap outside and the back gesture close it, and it closes by itself
  // when your turn starts, so it never hides your own turn while the clock runs.
  let sidePushed = false;
  let wasMine = false;
  const sideIsDrawer = () => !window.matchMedia("(min-width: 1180px) and (min-height: 600px)").matches;
  function setSide(open: boolean): void {
    if (s.sideOpen === open) return;
    s.sideOpen = open;
    if (open && sideIsDrawer()) {
      history.pushState({ drawer: tableId }, "");
      sidePushed = true;
    } else if (!open && sidePushed) {
      sidePushed = false;
      history.back();
    }
    paint();
  }
  function onPop(): void {
    if (!sidePushed) return;
    sidePushed = false;
    s.sideOpen = false;
    schedule();
  }
  window.addEventListener("popstate", onPop);

  function paint(): void {
    s.now = socket.serverNow();
    const mineNow = myTurn();
    if (mineNow && !wasMine && s.sideOpen && sideIsDrawer()) {
      s.sideOpen = false;
      if (sidePushed) {
        sidePushed = false;
        history.back();
      }
    }
    wasMine = mineNow;
    // A move that arrives mid-animation ends the running ones at once; a render with no
    // move (legal commands, a selection) lets them run on their kept elements.
    const sorted = s.sort !== lastSort;
    const moving = fxQueue.length > 0 || sorted;
    lastSort = s.sort;
    const animate = enabled() && moving;
    // Where things are on screen now (mid-flight included), read before anything changes
    // so the layout is still clean and the read costs nothing.
    const before = animate ? measure(el) : new Map();
    if (moving) finishAll();
    // The meld zones are measured again when what their room depends on changed: the
    // melds, the hand, the "new meld" target, the pile's caption, a notice, the viewport,
    // whose turn it is (a side seat on its turn also holds the clock, and is taller).
    const g0 = s.game;
    const look = g0 ? `${window.innerWidth}x${window.innerHeight}|${g0.hand?.length ?? 0}|${canPlay() && s.selected.length >= 3}|`
      + `${g0.melds.map((side) => side.map((m) => m.size).join()).join("/")}|${s.legalPending}|${s.legal.length}|${s.notice}|${g0.discard.size}|${g0.turn}` : "";
    const refit = look !== meldLook;
    meldLook = look;
    const tree = () => tableScreen(s, {
      draw, takePile: () => takePile(), meld: (card?: string) => void meld(card), discard: (c?: string) => void discard(c),
      addTo: (tm: number, i: number, c?: string) => void addTo(tm, i, c), toggle, leave, playAgain, act, verify, repaint: paint,
      chatEl: chat.el, chatUnread: chat.unread, myTurn: myTurn(), canDraw: canDraw(), canPlay: canPlay(), chosen: chosen(), seatName, sendEmote,
      rematch: () => rematch(), declineRematch: () => rematch(true), setSide,
    });
    // the cut (cut.ts) is drawn beside the table, in the same render
    const full = () => vh(Fragment, null, tree(), cutView(s.meta?.cut, s.seat, tableId, seatName));
    render(full(), el);
    if (!chatPainted) {
      chat.render();
      chatPainted = true;
    }
    // A zone turned compact: drawn again at once (twice at most: compact, then dense).
    for (let i = 0; i < 2 && refit && fitMelds(); i++) render(full(), el);
    const events = fxQueue;
    fxQueue = [];
    if (s.game && (events.length || animate)) {
      const fx = { root: el, before, me: s.seat, game: s.game, freshKey: s.freshKey, animate };
      if (animate && !sorted) {
        // Moves start their animations in the next frame, once the browser has laid the
        // new table out (reading it now would force a second layout into this frame);
        // what flies in stays hidden at its destination until then.
        const hidden = hideIncoming(fx, events);
        const gen = ++fxGen;
        const show = () => hidden.forEach((e) => { e.style.visibility = ""; });
        requestAnimationFrame(() => {
          if (gen === fxGen && frame && fxQueue.length) {
            // Newer moves render in this same frame and would end these animations the
            // moment they start: they start with theirs instead, measured from the table
            // as it is now (one layout read for both, not one each).
            show();
            fxQueue = [...events, ...fxQueue];
            return;
          }
          // The boxes are read while the incoming elements are still hidden (hiding moves
          // nothing, and showing them first would force a style pass before the reads).
          runFx({ ...fx, animate: gen === fxGen && enabled() }, events, show);
        });
      } else {
        runFx(fx, events);
      }
    }
    tick();
  }

  // The meld zones never scroll: a side whose fanned melds overflow its zone is drawn
  // compact, and dense if that is still too much (read right after a render: the layout
  // the frame needs anyway). A new hand or another viewport size starts fanned again.
  let meldLook = "";
  function fitMelds(): boolean {
    if (!s.game) return false;
    let grew = false;
    el.querySelectorAll<HTMLElement>("[data-region=melds]").forEach((z) => {
      const team = Number(z.dataset.team);
      const level = s.compact.get(team) ?? 0;
      if (level < 2 && z.scrollHeight > z.clientHeight + 1) {
        s.compact.set(team, level + 1);
        grew = true;
      }
    });
    return grew;
  }

  function tick(): void {
    if (!s.meta) return;
    if (s.rematch?.state === "open") schedule(); // the rematch's seconds left
    tickClock({
      root: el, deadline: s.meta.status === "playing" ? s.deadline : null, bank, banking, cap: bankCap, now: socket.serverNow(),
      mine: myTurn(), onWarn: () => { play("warn"); vibrate([200, 100, 200]); }, onWarnTick: () => play("tick"),
    });
  }

  function onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    if (e.key === "Escape" && s.sideOpen && !target.closest("[role=dialog]")) {
      e.preventDefault();
      setSide(false);
      return;
    }
    if (target.closest("input, textarea, select, [role=dialog]") || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key.toLowerCase();
    const map: Record<string, () => void> = {
      1: draw, 2: () => takePile(), 3: () => void meld(), 4: () => void discard(),
      5: () => { s.sort = s.sort === "suit" ? "rank" : "suit"; paint(); },
      escape: () => { s.selected = []; paint(); },
    };
    if (map[key] && s.game && s.seat !== null) {
      e.preventDefault();
      map[key]();
    }
  }
  document.addEventListener("keydown", onKey);
  const onResize = () => {
    s.compact = new Map(); // measured again at the new size
    schedule();
  };
  window.addEventListener("resize", onResize);
  document.body.classList.add("at-table");

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
      window.removeEventListener("resize", onResize);
      window.removeEventListener("popstate", onPop);
      document.body.classList.remove("at-table");
      if (frame) cancelAnimationFrame(frame);
      finishAll();
      render(null, el);
      chat.destroy();
    },
  };
}
