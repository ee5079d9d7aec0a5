// One tournament: its figures and registration, then tabs: the bracket (knockout: rounds
// as columns on a laptop, one under another on a phone) or the standings (Swiss), the
// round's tables with "Jugar" / "Ver mesa", each deal compared across tables (duplicate),
// the prizes and the entrants. Reloaded when a `tournament` message brings a newer version.
import { get, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { clockTime, t } from "../i18n";
import { socket } from "../socket";
import { app } from "../state";
import { spinner } from "../ui";
import { presetName } from "../presets";
import { playerName } from "../words";
import { coins, figures, holdWhilePressed, registration, stateName, tags } from "./tournaments";
import type { View } from "../view";

type Pane = "bracket" | "standings" | "matches" | "deals" | "prizes" | "entrants";
const PANE_KEYS = {
  bracket: "tn.bracket", standings: "tn.standings", matches: "tn.matches",
  deals: "tn.deals", prizes: "tn.prizes", entrants: "tn.entrantsTab",
} as const;

interface Side { side: number; names: string[]; user_ids: (number | null)[]; bots: number }

const mine = (s: Side | null | undefined): boolean => !!s && !!app.me && s.user_ids?.includes(app.me.id);
// Each name worded before the join (a guest's number in the reader's language): raw()
// words a whole text only when it is one guest's name.
const sideName = (s: Side | null | undefined): string => (s?.names?.length ? s.names.map(playerName).join(" / ") : t("tn.tbd"));

function sideLine(s: Side | null, score: number | null, won: boolean, cls: string): HTMLElement {
  return h("div", { class: `tn-side ${cls}${won ? " won" : ""}${mine(s) ? " me" : ""}` },
    s ? raw(sideName(s), "span", "tn-name") : h("span", { class: "tn-name muted" }, t("tn.tbd")),
    score === null ? null : h("span", { class: "tn-mp", "data-raw": "" }, fmt(score)));
}

/** "Jugar" for a player of a match being played, "Ver mesa" for anyone else. */
function tableButton(m: any): HTMLElement | null {
  if (m.state !== "playing" || !m.table_id) return null;
  const me = mine(m.a) || mine(m.b);
  return h("a", { href: `#/table/${m.table_id}`, class: `btn tiny ${me ? "primary tn-play" : "tn-watch"}` },
    t(me ? "tn.play" : "tn.watch"));
}

function matchState(m: any): HTMLElement {
  const key = m.b === null ? "tn.bye" : m.state === "done" ? "tn.done" : m.state === "playing" ? "tn.live" : "tn.pending";
  return h("span", { class: `tn-state s-${m.b === null ? "bye" : m.state}` }, t(key));
}

/** A match of the bracket: two sides, their Match Points, who went through. */
function bracketMatch(m: any | null): HTMLElement {
  if (!m) {
    return h("div", { class: "tn-match empty" }, sideLine(null, null, false, "a"), sideLine(null, null, false, "b"));
  }
  const bye = m.b === null;
  const scored = m.state !== "pending" && !bye;
  return h("div", { class: `tn-match s-${m.state}${mine(m.a) || mine(m.b) ? " mine" : ""}`, "data-table": String(m.table_no) },
    sideLine(m.a, scored ? m.mp[0] : null, m.winner !== null && m.winner === m.a?.side, "a"),
    bye ? h("div", { class: "tn-side b bye muted" }, t("tn.bye"))
      : sideLine(m.b, scored ? m.mp[1] : null, m.winner !== null && m.winner === m.b?.side, "b"),
    m.state === "playing" ? h("div", { class: "tn-match-foot" }, matchState(m), tableButton(m)) : null);
}

function roundName(r: number, total: number): string {
  if (r === total) return t("tn.final");
  if (r === total - 1) return t("tn.semifinal");
  if (r === total - 2) return t("tn.quarterfinal");
  return t("tn.roundN", { n: r });
}

/** The knockout bracket: every round, those not yet paired as empty boxes. */
function bracket(tn: any): HTMLElement {
  const total = Math.max(tn.rounds, tn.rounds_list.length, 1);
  const cols = [];
  for (let r = 1; r <= total; r++) {
    const played = tn.rounds_list.find((x: any) => x.round_no === r)?.matches ?? [];
    const size = Math.max(2 ** (total - r), played.length);
    const boxes = Array.from({ length: size }, (_, i) => bracketMatch(played.find((m: any) => m.table_no === i + 1) ?? null));
    cols.push(h("section", { class: `tn-col${r === tn.current_round && tn.state === "running" ? " now" : ""}`, "data-round": String(r) },
      h("h3", null, roundName(r, total)),
      h("div", { class: "tn-col-body" }, ...boxes)));
  }
  const champ = tn.state === "finished" || tn.state === "paying" ? tn.standings[0] : null;
  return h("div", { class: "tn-bracket", id: "tn-bracket", style: `--rounds:${total}` }, ...cols,
    champ ? h("section", { class: "tn-col champ" }, h("h3", null, t("tn.champion")),
      h("div", { class: "tn-col-body" }, h("div", { class: "tn-match champion" }, raw(sideName(champ), "span", "tn-name")))) : null);
}

/** The Swiss standings: place, names, VP, opponents' VP, MP difference, played. */
function standings(tn: any): HTMLElement {
  if (!tn.standings.length) return h("p", { class: "empty" }, t("tn.noStandings"));
  const th = (key: "tn.vp" | "tn.ovp" | "tn.mpDiff" | "tn.played", long: "tn.vpLong" | "tn.ovpLong" | "tn.mpDiffLong" | "tn.playedLong") =>
    h("th", { scope: "col", class: "num" }, h("abbr", { title: t(long) }, t(key)));
  const signed = (n: number) => (n > 0 ? `+${fmt(n)}` : fmt(n));
  return h("table", { class: "grid-table tn-standings", id: "tn-standings" },
    h("thead", null, h("tr", null,
      h("th", { scope: "col", class: "num" }, "#"),
      h("th", { scope: "col" }, t(tn.players === 4 ? "tn.pair" : "tn.player")),
      th("tn.vp", "tn.vpLong"), th("tn.ovp", "tn.ovpLong"), th("tn.mpDiff", "tn.mpDiffLong"), th("tn.played", "tn.playedLong"))),
    h("tbody", null, ...tn.standings.map((s: any) => h("tr", { class: mine(s) ? "me" : null },
      h("td", { class: "num", "data-raw": "" }, String(s.place)),
      h("td", { class: "tn-who" }, raw(sideName(s), "span", "tn-name"),
        s.out_in && tn.format === "knockout" ? h("small", { class: "muted" }, " ", t("tn.outIn", { n: s.out_in })) : null),
      h("td", { class: "num strong", "data-raw": "" }, fmt(s.vp)),
      h("td", { class: "num", "data-raw": "" }, fmt(s.opponents_vp)),
      h("td", { class: "num", "data-raw": "" }, signed(s.mp_diff)),
      h("td", { class: "num", "data-raw": "" }, fmt(s.played))))));
}

/** A round's tables: sides, Match Points, Victory Points, state and the way in. */
function matchList(round: any | undefined): HTMLElement {
  if (!round) return h("p", { class: "empty" }, t("tn.noMatches"));
  return h("ul", { class: "tn-matches", id: "tn-matches" }, ...round.matches.map((m: any) => {
    const scored = m.state !== "pending" && m.b !== null;
    return h("li", { class: `tn-row${mine(m.a) || mine(m.b) ? " mine" : ""}`, "data-table": String(m.table_no) },
      h("span", { class: "tn-tno" }, t("tn.table", { n: m.table_no })),
      h("span", { class: "tn-vs" },
        sideLine(m.a, scored ? m.mp[0] : null, m.winner !== null && m.winner === m.a?.side, "a"),
        m.b === null ? null : sideLine(m.b, scored ? m.mp[1] : null, m.winner !== null && m.winner === m.b?.side, "b")),
      h("span", { class: "tn-row-end" },
        matchState(m),
        m.state === "done" && m.b !== null ? h("small", { class: "muted" }, t("tn.vpScore", { a: m.vp[0], b: m.vp[1] })) : null,
        m.state === "playing" && m.deadline ? h("small", { class: "muted" }, t("tn.until", { time: clockTime(new Date(m.deadline)) })) : null,
        tableButton(m)));
  }));
}

/** Duplicate: each deal's Match Points at every table of the round, side by side. */
function dealTable(round: any | undefined): HTMLElement {
  const done = (round?.matches ?? []).filter((m: any) => m.deals?.length);
  if (!done.length) return h("p", { class: "empty" }, t("tn.noDeals"));
  const hands = Math.max(...done.map((m: any) => m.deals.length));
  return h("div", { class: "tn-deals-wrap" },
    h("p", { class: "muted small" }, t("tn.dealsAbout")),
    h("table", { class: "grid-table tn-deals", id: "tn-deals" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("tn.deal")),
        ...done.map((m: any) => h("th", { scope: "col", class: "num" }, t("tn.table", { n: m.table_no }))))),
      h("tbody", null, ...Array.from({ length: hands }, (_, i) => h("tr", null,
        h("th", { scope: "row" }, t("tn.dealN", { n: i + 1 })),
        ...done.map((m: any) => {
          const d = m.deals[i];
          if (!d) return h("td", { class: "num muted" }, "–");
          return h("td", { class: "num", "data-raw": "" },
            h("span", { class: d[0] >= d[1] ? "strong" : null }, fmt(d[0])), " : ", h("span", { class: d[1] > d[0] ? "strong" : null }, fmt(d[1])));
        })))),
      h("tfoot", null, h("tr", null, h("th", { scope: "row" }, t("tn.sides")),
        ...done.map((m: any) => h("td", { class: "num small" }, raw(`${sideName(m.a)} – ${sideName(m.b)}`)))))));
}

function prizes(tn: any): HTMLElement {
  const paid = new Map<number, string>();
  for (const p of tn.payouts) paid.set(p.place, p.state);
  return h("div", { class: "tn-prizes", id: "tn-prizes" },
    h("p", null, t("tn.poolLine"), " ", coins(tn.pool)),
    tn.prizes.length ? h("table", { class: "grid-table" },
      h("tbody", null, ...tn.prizes.map((amount: number, i: number) => h("tr", { class: i === 0 ? "first" : null },
        h("th", { scope: "row" }, t("tn.placeN", { n: i + 1 })),
        h("td", { class: "num" }, coins(amount)),
        h("td", null, paid.get(i + 1) === "paid" ? h("span", { class: "tag ok" }, t("tn.paid")) : null)))))
      : h("p", { class: "empty" }, t("tn.noPrizes")));
}

function entrants(tn: any): HTMLElement {
  if (!tn.entrants_list.length) return h("p", { class: "empty" }, t("tn.noEntrants"));
  return h("ol", { class: "tn-entrants", id: "tn-entrants" }, ...tn.entrants_list.map((e: any) =>
    h("li", { class: e.user_id && e.user_id === app.me?.id ? "me" : null },
      e.user_id ? h("a", { href: `#/profile/${e.user_id}` }, raw(e.name)) : raw(e.name),
      e.bot ? h("span", { class: "tag tiny" }, t("tn.bot")) : null,
      e.seed ? h("small", { class: "muted" }, " ", t("tn.seed", { n: e.seed })) : null)));
}

export function tournamentView(el: HTMLElement, id: number): View {
  let tn: any = null;
  let error = "";
  let pane: Pane | null = null;
  let roundNo = 0; // the round the tables and deals show (0: the current one)
  let version = -1; // the newest `tournament` version seen
  let seq = 0;

  async function load(): Promise<void> {
    const mineSeq = ++seq;
    try {
      const found = await get(`/api/tournaments/${id}`);
      if (mineSeq !== seq) return;
      if (!error && tn && JSON.stringify(found) === JSON.stringify(tn)) return; // nothing new
      tn = found;
      version = Math.max(version, found.version ?? -1);
      error = "";
    } catch (e) {
      if (mineSeq !== seq) return;
      error = errorText(e);
    }
    render();
  }

  function panes(): Pane[] {
    const out: Pane[] = [tn.format === "knockout" ? "bracket" : "standings", "matches"];
    if (tn.duplicate) out.push("deals");
    out.push("prizes", "entrants");
    return out;
  }

  function body(which: Pane): HTMLElement {
    const shown = roundNo || tn.current_round || tn.rounds_list.length;
    const round = tn.rounds_list.find((r: any) => r.round_no === shown);
    const picker = (which === "matches" || which === "deals") && tn.rounds_list.length > 1
      ? h("div", { class: "tn-rounds", role: "group", "aria-label": t("tn.roundPick") },
        ...tn.rounds_list.map((r: any) => h("button", {
          type: "button", class: `chip${r.round_no === shown ? " active" : ""}`, "aria-pressed": r.round_no === shown ? "true" : "false",
          onclick: () => { roundNo = r.round_no; render(); },
        }, t("tn.roundN", { n: r.round_no })))) : null;
    switch (which) {
      case "bracket": return bracket(tn);
      case "standings": return standings(tn);
      case "matches": return h("div", null, picker, matchList(round));
      case "deals": return h("div", null, picker, dealTable(round));
      case "prizes": return prizes(tn);
      default: return entrants(tn);
    }
  }

  function render(): void {
    if (held.pressed) {
      held.stale = true;
      return;
    }
    if (!tn) {
      mount(el, h("section", { class: "page tn-page" }, h("a", { href: "#/tournaments", class: "tn-back" }, "‹ ", t("tn.title")),
        error ? h("p", { class: "error", role: "alert" }, error) : spinner()));
      return;
    }
    const list = panes();
    if (!pane || !list.includes(pane)) pane = tn.state === "registering" ? "entrants" : list[0];
    const current = pane;
    mount(el, h("section", { class: "page tn-page tn-detail", id: "tn-detail", "data-state": tn.state, "data-round": String(tn.current_round) },
      h("a", { href: "#/tournaments", class: "tn-back" }, "‹ ", t("tn.title")),
      h("div", { class: "panel tn-head" },
        h("div", { class: "tn-head-main" },
          h("h1", null, raw(tn.name)),
          tags(tn),
          h("p", { class: "muted small tn-line" }, stateName(tn.state), " · ", presetName(tn.preset), " · ",
            t("tn.handsN", { n: tn.hands }), error ? h("span", { class: "error" }, " · ", error) : null)),
        figures(tn),
        registration(tn, (updated) => { tn = { ...tn, ...updated }; render(); load(); })),
      h("div", { class: "tabs tn-tabs", role: "tablist" }, ...list.map((p) => h("button", {
        type: "button", role: "tab", id: `tn-pane-${p}`, class: `tab${p === current ? " active" : ""}`,
        "aria-selected": p === current ? "true" : "false", onclick: () => { pane = p; render(); },
      }, t(PANE_KEYS[p])))),
      h("div", { class: "tn-scroll panel", role: "tabpanel", "aria-labelledby": `tn-pane-${current}` }, body(current))));
  }

  const off = socket.on("tournament", (f) => {
    if (f.id !== id || f.version <= version) return;
    version = f.version;
    load();
  });
  const held = holdWhilePressed(el, () => render());
  socket.setLobby(true);
  load();
  render();
  return {
    render,
    destroy() {
      off();
      held.off();
      socket.setLobby(false);
    },
  };
}
