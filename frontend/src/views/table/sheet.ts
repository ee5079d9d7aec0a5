// The words and sheets of the table: the move log's lines, the end-of-hand score sheet,
// the end sheet's own result (coins, XP, the next level) and the empty game view a table
// starts from before its first snapshot.
import { h, type VNode } from "preact";
import { get } from "../../api";
import { cardLabel, cardsLabel } from "../../cards";
import { fmt } from "../../dom";
import type { GameView, HandResult } from "../../game";
import { t, tk, type Key } from "../../i18n";
import { canastaBadge } from "./melds";
import "./clocksheet.css";

/** One line of the move log. Your own moves have their own sentences (`me` is your
 * seat): "Tú" or "You" does not conjugate like a name ("Tú levanta", "You takes"). */
export function moveText(e: any, name: (seat: number) => string, me: number | null = null): string | null {
  const who = e.seat !== undefined ? name(e.seat) : "";
  const k = (theirs: Key, mine: Key): Key => (e.seat !== undefined && e.seat === me ? mine : theirs);
  switch (e.type) {
    case "drew": return e.card ? t("move.drewCard", { who, card: cardLabel(e.card) }) : t("move.drew", { who });
    case "took_pile": return t(k("move.tookPile", "move.tookPileYou"), { who, n: e.count });
    case "melded": return t(k("move.melded", "move.meldedYou"), { who, cards: cardsLabel(e.cards) });
    case "added": return t(k("move.added", "move.addedYou"), { who, cards: cardsLabel(e.cards) });
    case "discarded": return t(k("move.discarded", "move.discardedYou"), { who, card: cardLabel(e.card) });
    case "muerto_taken": return t(e.direct ? k("move.muertoDirect", "move.muertoDirectYou")
      : k("move.muertoIndirect", "move.muertoIndirectYou"), { who });
    case "muerto_to_stock": return t("move.muertoToStock");
    case "hand_started": return t("move.handStarted", { n: e.hand_no });
    case "hand_ended": return t("move.handEnded");
    // seat facts (presence, bot takeover, the clock playing a turn)
    case "timeout": return e.you ? t("table.timedOutYou") : t("table.timedOut", { who });
    case "bot_takeover": { // your own seat in the second person: "Un bot juega por ti: abandonaste…"
      const you = e.seat === me;
      const why = tk(`takeover.${e.reason}${you ? "You" : ""}`, you ? "takeover.abandonYou" : "takeover.abandon");
      return t(you ? "table.botTookYou" : "table.botTook", { who, why });
    }
    case "away": return t("table.awayToast", { who, n: e.secs });
    case "back": return t("table.backToast", { who });
    default: return null;
  }
}

const ROWS: [keyof HandResult["scores"][number], Key][] = [
  ["table", "score.table"],
  ["canasta_bonus", "score.canastaBonus"],
  ["close_bonus", "score.closeBonus"],
  ["hand", "score.hand"],
  ["muerto_penalty", "score.muerto"],
  ["total", "score.total"],
];

function signed(n: number): string {
  return n > 0 ? `+${fmt(n)}` : fmt(n);
}

export function scoreSheet(r: HandResult, sideName: (team: number) => string): VNode<any> {
  const teams = r.scores.map((_, i) => i);
  return h("table", { class: "score-sheet", id: "score-sheet" },
    h("caption", null, t("score.caption", { n: r.hand_no })),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("score.concept")),
      ...teams.map((tm) => h("th", { scope: "col", class: r.winner === tm ? "win" : undefined }, sideName(tm))))),
    h("tbody", null,
      h("tr", null, h("th", { scope: "row" }, t("score.canastas")),
        ...teams.map((tm) => h("td", { class: "badges" }, ...(r.scores[tm].canastas.length
          ? r.scores[tm].canastas.map((k) => canastaBadge(k)) : ["—"])))),
      ...ROWS.map(([key, label]) => h("tr", { class: key === "total" ? "total" : undefined },
        h("th", { scope: "row" }, t(label)),
        ...teams.map((tm) => h("td", { "data-raw": "" }, signed(Number(r.scores[tm][key])))))),
      r.totals.length && r.match_over !== undefined ? h("tr", { class: "grand" }, h("th", { scope: "row" }, t("score.matchTotal")),
        ...teams.map((tm) => h("td", { "data-raw": "" }, fmt(r.totals[tm] ?? 0)))) : null));
}

export function baseView(meta: any, seat: number | null): GameView {
  const rules = meta.rules ?? {};
  const players = meta.players;
  const pairs = players === 4 && rules.pairs;
  const teams = Array.from({ length: players }, (_, s) => (pairs ? s % 2 : s));
  const sides = Math.max(...teams) + 1;
  return {
    phase: "draw", turn: 0, hand_no: 0, first: 0, players, teams,
    hand_sizes: teams.map(() => 0), melds: Array.from({ length: sides }, () => []),
    discard: { kind: rules.discard_pile ?? "open", size: 0, cards: [] }, stock_size: 0,
    muertos: [], taken_single: null, scores: { hand: [], totals: [] }, end_reason: null,
    closer: -1, winner: -1, match_winner: -1, viewer: seat,
    hand: seat === null ? null : [], team: seat === null ? null : teams[seat],
  };
}

/** The caller's own result of a finished game: GET /api/games/{id}/mine. */
export interface MyResult {
  settled: boolean;
  outcome: string | null;
  coins_delta: number;
  xp_gained: number;
  bet: number;
  with_bots: boolean;
  level: number;
  xp: number;
  level_xp: number;
  next_level_xp: number | null;
}

/** The end sheet's own lines: coins won or lost, XP gained, the way to the next level.
 * Only the player's own result (no one else's coins are shown). */
export function myResultView(r: MyResult | null | undefined): VNode<any> {
  if (!r || !r.settled) return h("div", { class: "my-result", id: "my-result", "data-state": "waiting" }, h("p", { class: "hint" }, t("end.settling")));
  const coins = r.coins_delta > 0 ? t("end.coinsWon", { n: fmt(r.coins_delta) })
    : r.coins_delta < 0 ? t("end.coinsLost", { n: fmt(-r.coins_delta) })
    : r.bet === 0 ? t("end.noStake") : r.with_bots ? t("end.botsNoCoins") : t("end.coinsBack");
  const next = r.next_level_xp;
  const span = next === null ? 1 : Math.max(1, next - r.level_xp);
  const done = next === null ? 1 : Math.min(1, Math.max(0, (r.xp - r.level_xp) / span));
  return h("div", { class: "my-result", id: "my-result", "data-state": "settled" },
    h("p", { class: "line" },
      h("span", { class: `coins-delta ${r.coins_delta > 0 ? "up" : r.coins_delta < 0 ? "down" : ""}`, id: "my-coins", "data-delta": r.coins_delta }, coins),
      r.xp_gained > 0 ? h("span", { class: "xp-gain", id: "my-xp", "data-xp": r.xp_gained }, t("end.xpGained", { n: fmt(r.xp_gained) })) : null),
    h("p", { class: "line" }, h("span", null, t("end.level", { n: r.level })),
      h("span", { class: "muted", id: "my-next" }, next === null ? t("end.maxLevel")
        : t("end.toNext", { n: fmt(next - r.xp), level: r.level + 1 }))),
    h("div", {
      class: "level-bar", id: "level-bar", role: "progressbar", "aria-label": t("end.progress"),
      "aria-valuemin": 0, "aria-valuemax": 100, "aria-valuenow": Math.round(done * 100),
    }, h("span", { style: { width: `${Math.round(done * 100)}%` } })),
    r.xp_gained > 0 ? null : h("p", { class: "hint", id: "my-no-xp" },
      t(r.with_bots ? "end.botsNoXp" : r.bet === 0 ? "end.freeNoXp" : "end.noXp")));
}

/** The player's own result, asked again while the settlement is still on its way (it
 * commits a moment after the last hand ends). */
export async function loadMyResult(gameId: string, tries = 10): Promise<MyResult | null> {
  for (let i = 0; i < tries; i++) {
    try {
      const r: MyResult = await get(`/api/games/${encodeURIComponent(gameId)}/mine`);
      if (r.settled) return r;
    } catch { /* the next try, or the sheet says it is still being settled */ }
    await new Promise((done) => setTimeout(done, 400 + i * 300));
  }
  return null;
}
