// The lobby: "¡Juega ya!", wallet and daily bonus, invitations and challenges, the live
// table list with filters, "Crear partida", online players and the lobby chat.
import { playerName, tableTitle } from "../words";
import { ApiError, get, post, errorText } from "../api";
import { h, mount, raw, fmt, keepFocus } from "../dom";
import { clockTime, dayWord, laterWords, ratingNum, t } from "../i18n";
import { PRESET_NAMES } from "../presets";
import { socket } from "../socket";
import { app, changed, onChange, refreshWallet, setWallet } from "../state";
import { botStrength, setBotStrength, STRENGTHS, strengthName } from "../botStrength";
import { toast, coinIcon, avatarImg } from "../ui";
import { MIN_BET, presetName } from "../presets";
import { chatPanel, type ChatPanel } from "./chat";
import { answerInvite } from "../invites";
import { challengeDialog } from "./social";
import type { View } from "../view";
import { guideOffer } from "./learn/offer";
import "./table/clocksheet.css";

const QUICK_KEY = "buraco.quick";

export function lobbyView(el: HTMLElement): View {
  let tables: any[] = [];
  let online: any[] = [];
  let playing: any[] = [];
  const saved = JSON.parse(localStorage.getItem(QUICK_KEY) ?? "{}");
  const quick = {
    preset: saved.preset ?? "cerrado", players: saved.players ?? 2, bots: saved.bots ?? true,
    match: saved.match === true, // "Partida a N" rather than one hand
  };
  // Quick play's match target per variant (GET /api/lobby/options); until it comes, the
  // rules' own: Brasil 3,000, the others seed 003's 2,000.
  let targets: Record<string, number> = {};
  const targetOf = (preset: string): number => targets[preset] ?? (preset === "brasil" ? 3000 : 2000);
  const filters = { preset: "", players: "", maxBet: "", free: false, turbo: "" };
  const chat: ChatPanel = chatPanel(null);
  const offs: (() => void)[] = [];

  // A render replaces every element of the lobby. One that lands between a press and its
  // release would swallow the click (the press and the release on different elements),
  // and a busy lobby renders on every table change. So while a pointer is down the lobby
  // waits, and paints once after the click has been dispatched (or after 2 s at most).
  let pressed = false;
  let stale = false;
  let pressTimer = 0;
  const release = (): void => {
    if (!pressed) return;
    pressed = false;
    window.clearTimeout(pressTimer);
    if (stale) {
      stale = false;
      window.setTimeout(render, 0);
    }
  };
  const press = (): void => {
    pressed = true;
    window.clearTimeout(pressTimer);
    pressTimer = window.setTimeout(release, 2000);
  };
  el.addEventListener("pointerdown", press, true);
  window.addEventListener("pointerup", release, true);
  window.addEventListener("pointercancel", release, true);
  offs.push(() => {
    el.removeEventListener("pointerdown", press, true);
    window.removeEventListener("pointerup", release, true);
    window.removeEventListener("pointercancel", release, true);
    window.clearTimeout(pressTimer);
  });

  offs.push(socket.on("lobby", (f) => { tables = f.tables; playing = f.playing ?? playing; render(); }));
  offs.push(socket.on("lobby_playing", (f) => {
    playing = [f.table, ...playing.filter((x) => x.id !== f.table.id)];
    render();
  }));
  offs.push(socket.on("lobby_playing_remove", (f) => {
    playing = playing.filter((x) => x.id !== f.table);
    render();
  }));
  offs.push(socket.on("lobby_table", (f) => {
    tables = [...tables.filter((x) => x.id !== f.table.id), f.table];
    render();
  }));
  offs.push(socket.on("lobby_remove", (f) => {
    tables = tables.filter((x) => x.id !== f.table);
    render();
  }));
  offs.push(onChange(() => render()));
  socket.setLobby(true);
  get("/api/tables").then((d) => { tables = d.tables; render(); }).catch(() => undefined);

  async function loadOnline(): Promise<void> {
    try {
      online = await get("/api/players/online");
      render();
    } catch { /* social endpoints unavailable */ }
  }
  async function loadPlaying(): Promise<void> {
    try {
      playing = (await get("/api/tables?status=playing")).tables;
      render();
    } catch { /* listing unavailable: nothing to watch */ }
  }
  loadOnline();
  loadPlaying();
  get("/api/lobby/options").then((o) => {
    targets = o.match_targets ?? {};
    render();
  }).catch(() => undefined);
  // Games in play come live from the lobby stream; the online list is polled.
  const onlineTimer = window.setInterval(loadOnline, 15000);

  async function playNow(): Promise<void> {
    localStorage.setItem(QUICK_KEY, JSON.stringify(quick));
    try {
      const meta = await post("/api/quickplay", {
        preset: quick.preset, players: quick.players, bots_after_seconds: quick.bots ? 8 : null,
        bot_strength: botStrength(), match: quick.match,
      });
      location.hash = `#/table/${meta.id}`;
    } catch (e) {
      toast(errorText(e), "error");
      if (e instanceof ApiError && e.code === "insufficient_funds") brokeNotice();
    }
  }

  /** Refused for want of coins: the notice that says what to do, in sight. */
  async function brokeNotice(): Promise<void> {
    await refreshWallet();
    render();
    document.getElementById("broke")?.scrollIntoView({ block: "nearest" });
  }

  async function sit(id: string): Promise<void> {
    try {
      await post(`/api/tables/${id}/sit`, {});
      location.hash = `#/table/${id}`;
    } catch (e) {
      toast(errorText(e), "error");
      if (e instanceof ApiError && e.code === "insufficient_funds") brokeNotice();
    }
  }

  async function bonus(): Promise<void> {
    try {
      setWallet(await post("/api/wallet/daily-bonus"));
      toast(t("wallet.bonusGot"), "ok");
      changed();
    } catch (e) {
      toast(errorText(e), "error");
      refreshWallet();
    }
  }

  function visibleTables(): any[] {
    return tables
      .filter((x) => !filters.preset || x.preset === filters.preset)
      .filter((x) => !filters.players || x.players === Number(filters.players))
      .filter((x) => !filters.maxBet || x.bet <= Number(filters.maxBet))
      .filter((x) => !filters.free || x.free_seats > 0)
      .filter((x) => !filters.turbo || String(x.turbo) === filters.turbo)
      .sort((a, b) => a.bet - b.bet || a.created_at - b.created_at);
  }

  function quickCard(): HTMLElement {
    // Opening a table for 4 (pairs) is a special table: it costs its opener 1 credit.
    const special = h("p", { class: "hint special", id: "quick-special" });
    const showSpecial = () => { special.textContent = quick.players === 4 ? t("create.specialCost") : ""; };
    showSpecial();
    // One hand, or a match to the variant's target (its number follows the variant).
    const matchLabel = h("span", { id: "quick-match-label" }, t("lobby.quickMatch", { n: fmt(targetOf(quick.preset)) }));
    const modeRadio = (match: boolean, id: string, label: HTMLElement | string): HTMLElement =>
      h("label", { for: id },
        h("input", {
          type: "radio", name: "quick-mode", id, value: match ? "match" : "hand", checked: quick.match === match,
          onchange: () => { quick.match = match; },
        }), label);
    return h("section", { class: "panel quick", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, t("lobby.quickTitle")),
      h("p", { class: "muted" }, t("lobby.quickLead")),
      h("div", { class: "row wrap" },
        h("label", { class: "sr-only", for: "quick-preset" }, t("lobby.modality")),
        h("select", {
          id: "quick-preset", onchange: (e: Event) => {
            quick.preset = (e.target as HTMLSelectElement).value;
            matchLabel.textContent = t("lobby.quickMatch", { n: fmt(targetOf(quick.preset)) });
          },
        }, ...PRESET_NAMES.map((p) => h("option", { value: p, selected: p === quick.preset }, presetName(p)))),
        h("label", { class: "sr-only", for: "quick-players" }, t("lobby.players")),
        h("select", {
          id: "quick-players", onchange: (e: Event) => { quick.players = Number((e.target as HTMLSelectElement).value); showSpecial(); },
        }, ...[2, 4].map((n) => h("option", { value: n, selected: n === quick.players }, t("create.playersN", { n })))),
        h("label", { class: "check inline" },
          h("input", { type: "checkbox", id: "quick-bots", checked: quick.bots, onchange: (e: Event) => { quick.bots = (e.target as HTMLInputElement).checked; } }),
          t("lobby.quickBots")),
        h("label", { class: "sr-only", for: "quick-strength" }, t("table.botStrength")),
        h("select", {
          id: "quick-strength", title: t("table.botStrength"),
          onchange: (e: Event) => setBotStrength((e.target as HTMLSelectElement).value),
        }, ...STRENGTHS.map((s) => h("option", { value: s, selected: s === botStrength() }, strengthName(s))))),
      h("fieldset", { class: "quick-mode", id: "quick-mode" },
        h("legend", { class: "sr-only" }, t("lobby.quickMode")),
        modeRadio(false, "quick-hand", t("lobby.quickHand")),
        modeRadio(true, "quick-match", matchLabel)),
      // The stakes, said before sitting: against people, and against bots.
      h("p", { class: "quick-stake", id: "quick-stake" }, coinIcon(), " ", t("lobby.quickStake", { bet: fmt(MIN_BET) })),
      h("p", { class: "hint", id: "quick-bots-stake" }, t("lobby.quickBotsStake")),
      h("button", { type: "button", class: "btn primary huge", id: "play-now", onclick: playNow }, t("lobby.playNow")),
      special,
      h("a", { class: "rules-link", id: "lobby-rules", href: `#/rules/${quick.preset}` }, "? ", t("learn.title")));
  }

  /** "Crear partida": the dialog's code (createTable.ts) loads on first use. */
  function openCreate(): void {
    Promise.all([import("./createTable"), laterWords()])
      .then(([m]) => m.createTableDialog((x) => { location.hash = `#/table/${x.id}`; }))
      .catch(() => toast(t("err.unknown"), "error"));
  }

  /** A table's bet, or "Sin apuesta" for a table without stakes. */
  function betTag(bet: number): HTMLElement {
    return bet > 0
      ? h("div", { class: "bet" }, coinIcon(), h("span", { "data-raw": "" }, fmt(bet)))
      : h("div", { class: "bet free" }, t("create.free"));
  }

  /** A table without stakes against bots, at once: for a player who cannot pay a bet. */
  async function playFree(): Promise<void> {
    try {
      const table = await post("/api/tables", { preset: quick.preset, players: quick.players, bet: 0 });
      await post(`/api/tables/${table.id}/bots`, { bot_strength: botStrength() });
      location.hash = `#/table/${table.id}`;
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  /** Below the smallest stake: what to do, never a dead end (docs/economy.md). */
  function brokeCard(): HTMLElement | null {
    const w = app.wallet;
    if (!w || w.coins >= MIN_BET) return null;
    const next = w.next_bonus_at ? new Date(w.next_bonus_at) : null;
    const ready = !next || next.getTime() <= Date.now();
    return h("section", { class: "panel broke", id: "broke", role: "status", "aria-labelledby": "broke-title" },
      h("h2", { id: "broke-title" }, t("lobby.brokeTitle")),
      h("p", null, t("lobby.brokeText", { coins: fmt(w.coins), min: fmt(MIN_BET) })),
      h("p", null, ready
        ? t("lobby.brokeBonus", { min: fmt(MIN_BET) })
        : t("lobby.brokeWait", { day: dayWord(next!), time: clockTime(next!), min: fmt(MIN_BET) })),
      h("div", { class: "row wrap" },
        ready ? h("button", { type: "button", class: "btn gold", id: "broke-bonus", onclick: bonus }, t("wallet.bonus")) : null,
        h("button", { type: "button", class: "btn primary", id: "play-free", onclick: playFree }, t("lobby.playFree"))));
  }

  function walletCard(): HTMLElement | null {
    const w = app.wallet;
    if (!w) return null;
    const next = w.next_bonus_at ? new Date(w.next_bonus_at) : null;
    const ready = !next || next.getTime() <= Date.now();
    return h("section", { class: "panel wallet-card", "aria-labelledby": "wallet-title" },
      h("h2", { id: "wallet-title" }, t("wallet.title")),
      h("div", { class: "balances" },
        h("div", null, h("span", { class: "big", "data-raw": "" }, fmt(w.coins)), h("span", { class: "muted" }, t("wallet.coins"))),
        h("div", null, h("span", { class: "big", "data-raw": "" }, fmt(w.credits)), h("span", { class: "muted" }, t("wallet.credits")))),
      ready
        ? h("button", { type: "button", class: "btn gold", id: "daily-bonus", onclick: bonus }, t("wallet.bonus"))
        : h("p", { class: "hint" }, t("wallet.bonusNext", { day: dayWord(next!), time: clockTime(next!) })));
  }

  function invitesCard(): HTMLElement | null {
    if (!app.invites.length) return null;
    return h("section", { class: "panel invites", "aria-labelledby": "inv-title" },
      h("h2", { id: "inv-title" }, t("lobby.invites")),
      h("ul", { class: "list" }, ...app.invites.map((inv) =>
        h("li", { class: "invite" },
          h("span", null, t(inv.kind === "challenge" ? "challenge.from" : "invite.from", { name: "" }), raw(inv.from.name, "strong"),
            " · ", presetName(inv.table.preset), " · ", h("span", { "data-raw": "" }, fmt(inv.table.bet)), " ", t("wallet.coins")),
          h("span", { class: "row" },
            h("button", { type: "button", class: "btn small primary", onclick: () => answerInvite(inv, true) }, t("common.accept")),
            h("button", { type: "button", class: "btn small", onclick: () => answerInvite(inv, false) }, t("common.decline")))))));
  }

  function filterBar(): HTMLElement {
    const sel = (id: string, label: string, value: string, options: [string, string][], set: (v: string) => void) =>
      h("label", { class: "filter" }, h("span", null, label),
        h("select", { id, onchange: (e: Event) => { set((e.target as HTMLSelectElement).value); keepFocus(render); } },
          ...options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))));
    return h("div", { class: "filters", role: "group", "aria-label": t("lobby.filters") },
      sel("f-preset", t("lobby.modality"), filters.preset, [["", t("lobby.all")], ...PRESET_NAMES.map((p) => [p, presetName(p)] as [string, string])], (v) => { filters.preset = v; }),
      sel("f-players", t("lobby.players"), filters.players, [["", t("lobby.all")], ["2", "2"], ["3", "3"], ["4", "4"]], (v) => { filters.players = v; }),
      sel("f-bet", t("lobby.maxBet"), filters.maxBet, [["", t("lobby.all")], ["6000", fmt(6000)], ["20000", fmt(20000)], ["100000", fmt(100000)]], (v) => { filters.maxBet = v; }),
      sel("f-turbo", t("lobby.speed"), filters.turbo, [["", t("lobby.all")], ["false", t("lobby.normal")], ["true", t("lobby.turbo")]], (v) => { filters.turbo = v; }),
      h("label", { class: "filter check inline" },
        h("input", { type: "checkbox", id: "f-free", checked: filters.free, onchange: (e: Event) => { filters.free = (e.target as HTMLInputElement).checked; keepFocus(render); } }),
        t("lobby.freeSeats")));
  }

  /** A seated person's rating, for the lobby's lines ("?" while provisional). */
  function ratingText(s: any): string {
    return s && s.rating != null ? `${ratingNum(s.rating)}${s.provisional ? "?" : ""}` : "";
  }

  /** What the number is, and what its "?" means, as the table's seats say it. */
  function ratingTitle(s: any): string {
    return t(s.provisional ? "rating.provisional" : "rating.title");
  }

  function tableRow(x: any): HTMLElement {
    const seated = x.seats.filter(Boolean).length;
    const mine = x.seats.some((s: any) => s && s.user_id === app.me?.id);
    return h("li", { class: "table-row" },
      h("div", { class: "tname" }, raw(tableTitle(x), "strong"),
        h("span", { class: "tags" },
          h("span", { class: "tag" }, presetName(x.preset)),
          x.turbo ? h("span", { class: "tag turbo" }, t("lobby.turbo")) : null,
          x.target_score ? h("span", { class: "tag" }, t("lobby.toPoints", { n: x.target_score })) : null)),
      h("div", { class: "seats", "aria-label": t("lobby.seatsTaken", { n: seated, of: x.players }) },
        ...x.seats.map((s: any) => h("span", { class: `seat-dot ${s ? "on" : ""}`, "aria-hidden": "true" })),
        h("span", { class: "muted" }, ` ${seated}/${x.players}`),
        ...x.seats.filter((s: any) => ratingText(s)).map((s: any) =>
          h("span", { class: "tag tiny rating", title: ratingTitle(s), "data-raw": "", "data-rating": "" }, ratingText(s)))),
      betTag(x.bet),
      h("div", { class: "actions" },
        mine
          ? h("a", { class: "btn small", href: `#/table/${x.id}` }, t("lobby.open"))
          : h("button", { type: "button", class: "btn small primary", disabled: x.free_seats < 1, onclick: () => sit(x.id) }, t("lobby.sit")),
        h("a", { class: "btn small ghost", href: `#/table/${x.id}` }, t("lobby.watch"))));
  }

  function tablesCard(): HTMLElement {
    const list = visibleTables();
    return h("section", { class: "panel tables", "aria-labelledby": "tables-title" },
      h("div", { class: "panel-head" },
        h("h2", { id: "tables-title" }, t("lobby.tables")),
        h("button", { type: "button", class: "btn", id: "create-table", onclick: () => openCreate() }, t("lobby.create"))),
      filterBar(),
      list.length
        ? h("ul", { class: "table-list" }, ...list.map(tableRow))
        : h("p", { class: "empty" }, t("lobby.noTables")));
  }

  function playingCard(): HTMLElement | null {
    if (!playing.length) return null;
    return h("section", { class: "panel tables", "aria-labelledby": "playing-title" },
      h("div", { class: "panel-head" }, h("h2", { id: "playing-title" }, t("lobby.playing"))),
      h("ul", { class: "table-list" }, ...playing.slice(0, 20).map((x) =>
        h("li", { class: "table-row" },
          h("div", { class: "tname" }, raw(tableTitle(x), "strong"),
            h("span", { class: "tags" }, h("span", { class: "tag" }, presetName(x.preset)))),
          // Each player's name whole on a line: a list that wraps breaks between names
          // (or before a rating), and a name too long for a phone's column is cut with an
          // ellipsis (its title holds the whole).
          h("div", { class: "seats" },
            h("span", { "data-rating": "" }, ...x.seats.filter(Boolean).flatMap((s: any, i: number) => {
              const who = playerName(s.name);
              return [i ? " · " : "", h("span", { class: "pname", "data-raw": "", title: who }, who),
                ratingText(s) ? h("span", { class: "prating", "data-raw": "", title: ratingTitle(s) }, ` (${ratingText(s)})`) : ""];
            }))),
          betTag(x.bet),
          h("div", { class: "actions" },
            h("a", { class: "btn small ghost", href: `#/table/${x.id}` }, t("lobby.watch")))))));
  }

  /** Everyone connected, you included (you are online while you read this). */
  function onlineCount(): number {
    return online.filter((p) => p.user_id !== app.me?.id).length + 1;
  }

  function onlineCard(): HTMLElement {
    return h("section", { class: "panel online", "aria-labelledby": "online-title" },
      h("h2", { id: "online-title" }, t("lobby.online"), h("span", { class: "count", "data-raw": "", id: "online-count" }, ` ${fmt(onlineCount())}`)),
      // Friends first (the ones you came to play with), each ringed in the list.
      h("ul", { class: "players" }, ...online.filter((p) => p.user_id !== app.me?.id)
        .sort((a, b) => Number(!!b.friend) - Number(!!a.friend)).slice(0, 50).map((p) =>
        h("li", { class: p.friend ? "friend" : null, "data-user": p.user_id },
          h("span", { class: "who" },
            h("a", { href: `#/profile/${p.user_id}`, class: "who", title: playerName(p.nickname) }, avatarImg(p.avatar, "small"), raw(p.nickname)),
            h("span", { class: "muted small" }, t("profile.levelN", { n: p.level }))),
          // Guests have no username yet, so they cannot be challenged.
          p.guest ? null
            : h("button", { type: "button", class: "btn tiny", onclick: () => challengeDialog(p.nickname) }, t("social.challenge"))))),
      online.length <= 1 ? h("p", { class: "empty" }, t("lobby.nobodyOnline")) : null);
  }

  function render(): void {
    if (pressed) {
      stale = true;
      return;
    }
    keepFocus(() => mount(el,
      h("div", { class: "lobby" },
        h("div", { class: "col main-col" }, brokeCard(), guideOffer(render), quickCard(), invitesCard(), tablesCard(), playingCard()),
        h("div", { class: "col side-col" }, walletCard(), onlineCard(), chat.el))));
    chat.render();
  }

  return {
    render,
    destroy() {
      socket.setLobby(false);
      offs.forEach((off) => off());
      window.clearInterval(onlineTimer);
      chat.destroy();
    },
  };
}


