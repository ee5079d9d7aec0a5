// Pieces of the table screen that need no table state: melds, seats, score sheet, moves.
import { cardBack, cardFace, cardLabel, cardsLabel } from "../cards";
import { h, raw, fmt } from "../dom";
import type { GameView, HandResult, MeldView } from "../game";
import { t, tk, type Key } from "../i18n";

export function canastaBadge(kind: string | null): HTMLElement | null {
  if (!kind) return null;
  return h("span", { class: `badge-canasta ${kind}` }, tk(`canasta.${kind}`));
}

/** One meld: mini cards, the wild slot marked, its canasta badge. */
export function meldBody(m: MeldView): HTMLElement[] {
  const cards = m.cards.map((c) => {
    const [card, slot] = c.split("=");
    return cardFace(card, `mini ${slot ? "wild-slot" : ""}`, slot);
  });
  return [h("span", { class: "meld-cards" }, ...cards), canastaBadge(m.canasta) ?? h("span", { class: "meld-size", "data-raw": "" }, String(m.size))].filter(Boolean) as HTMLElement[];
}

export function meldLabel(m: MeldView): string {
  const kind = t(m.type === "run" ? "meld.run" : "meld.group");
  const names = m.cards.map((c) => {
    const [card, slot] = c.split("=");
    return slot ? t("card.wildFor", { card: cardLabel(card), slot: cardLabel(slot) }) : cardLabel(card);
  });
  const can = m.canasta ? ` · ${tk(`canasta.${m.canasta}`)}` : "";
  return `${kind} (${m.size})${can}: ${names.join(", ")}`;
}

export function backs(n: number, label: string): HTMLElement {
  const shown = Math.min(n, 8);
  return h("span", { class: "backs", role: "img", "aria-label": label },
    ...Array.from({ length: shown }, () => cardBack("tiny")),
    h("span", { class: "count", "aria-hidden": "true", "data-raw": "" }, String(n)));
}

export function moveText(e: any, name: (seat: number) => string): string | null {
  const who = e.seat !== undefined ? name(e.seat) : "";
  switch (e.type) {
    case "drew": return e.card ? t("move.drewCard", { who, card: cardLabel(e.card) }) : t("move.drew", { who });
    case "took_pile": return t("move.tookPile", { who, n: e.count });
    case "melded": return t("move.melded", { who, cards: cardsLabel(e.cards) });
    case "added": return t("move.added", { who, cards: cardsLabel(e.cards) });
    case "discarded": return t("move.discarded", { who, card: cardLabel(e.card) });
    case "muerto_taken": return t(e.direct ? "move.muertoDirect" : "move.muertoIndirect", { who });
    case "muerto_to_stock": return t("move.muertoToStock");
    case "hand_started": return t("move.handStarted", { n: e.hand_no });
    case "hand_ended": return t("move.handEnded");
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

export function scoreSheet(r: HandResult, sideName: (team: number) => string): HTMLElement {
  const teams = r.scores.map((_, i) => i);
  return h("table", { class: "score-sheet", id: "score-sheet" },
    h("caption", null, t("score.caption", { n: r.hand_no })),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("score.concept")),
      ...teams.map((tm) => h("th", { scope: "col", class: r.winner === tm ? "win" : null }, sideName(tm))))),
    h("tbody", null,
      h("tr", null, h("th", { scope: "row" }, t("score.canastas")),
        ...teams.map((tm) => h("td", { class: "badges" }, ...(r.scores[tm].canastas.length
          ? r.scores[tm].canastas.map((k) => canastaBadge(k)) : ["—"])))),
      ...ROWS.map(([key, label]) => h("tr", { class: key === "total" ? "total" : null },
        h("th", { scope: "row" }, t(label)),
        ...teams.map((tm) => h("td", { "data-raw": "" }, signed(Number(r.scores[tm][key])))))),
      r.totals.length && r.match_over !== undefined ? h("tr", { class: "grand" }, h("th", { scope: "row" }, t("score.matchTotal")),
        ...teams.map((tm) => h("td", { "data-raw": "" }, fmt(r.totals[tm] ?? 0)))) : null));
}

function signed(n: number): string {
  return n > 0 ? `+${fmt(n)}` : fmt(n);
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

export function stockPile(n: number, enabled: boolean, onDraw: () => void): HTMLElement {
  return h("button", {
    type: "button", class: `pile stock ${enabled ? "ready" : ""}`, id: "stock", disabled: !enabled,
    "aria-label": t("table.stockLabel", { n }), onclick: onDraw,
  }, cardBack(), h("span", { class: "pile-count", "data-raw": "" }, String(n)), h("span", { class: "pile-name" }, t("table.stock")));
}

export function muertoPiles(g: GameView, side: (team: number) => string): HTMLElement | null {
  if (!g.muertos.length || g.muertos.every((m) => m.status === "none")) return null;
  return h("div", { class: "muertos", role: "group", "aria-label": t("table.muertos") },
    ...g.muertos.map((m, team) => {
      const state = m.status === "table" ? t("table.muertoWaiting", { n: m.size })
        : m.status === "stock" ? t("table.muertoStock") : t("table.muertoTaken");
      return h("div", { class: `muerto ${m.status}`, role: "img", "aria-label": `${t("table.muertoOf", { side: side(team) })}: ${state}` },
        m.status === "table" ? cardBack("small") : h("span", { class: "card ghost small", "aria-hidden": "true" }),
        h("span", { class: "muerto-label" }, t("table.muerto"), " ", raw(side(team), "span", "muted")),
        h("span", { class: "muted small" }, state));
    }));
}

export function seatPanel(opts: {
  name: string; avatar: string; count: number | null; turn: boolean; bot: boolean;
  partner: boolean; you: boolean; away: boolean; pos: string; seat: number;
}): HTMLElement {
  const label = [opts.name, opts.you ? t("table.you") : "", opts.partner ? t("table.partner") : "",
    opts.count !== null ? t("table.cardsInHand", { n: opts.count }) : "", opts.turn ? t("table.theirTurn") : "",
    opts.away ? t("table.away") : ""].filter(Boolean).join(", ");
  return h("div", { class: `seat pos-${opts.pos} ${opts.turn ? "turn" : ""}`, role: "group", "aria-label": label, "data-seat": opts.seat },
    h("span", { class: "avatar", "aria-hidden": "true", "data-raw": "" }, opts.avatar),
    h("div", { class: "seat-info" },
      h("span", { class: "seat-name" }, raw(opts.name), opts.bot ? h("span", { class: "tag tiny" }, t("table.bot")) : null,
        opts.partner ? h("span", { class: "tag tiny" }, t("table.partner")) : null, opts.away ? h("span", { class: "tag tiny warn" }, t("table.away")) : null),
      opts.turn ? h("span", { class: "clock", "data-clock": opts.seat, "aria-hidden": "true" }, h("span", { class: "clock-bar" })) : null),
    opts.count !== null && !opts.you ? backs(opts.count, t("table.cardsInHand", { n: opts.count })) : null);
}
