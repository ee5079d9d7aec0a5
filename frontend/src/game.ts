// The client's copy of the game view (app/rules/views.py view_for) and how each redacted
// event changes it, mirroring the engine's evolve(). A snapshot replaces it whole.

export interface MeldView {
  index: number;
  owner: number;
  type: "run" | "group";
  cards: string[]; // "7H", or "2S=3H" for a wild standing in a slot
  size: number;
  wild: string | null;
  canasta: string | null;
}

export interface GameView {
  phase: "draw" | "play" | "hand_over" | "over";
  turn: number;
  hand_no: number;
  first: number;
  players: number;
  teams: number[];
  hand_sizes: number[];
  melds: MeldView[][];
  discard: { kind: string; size: number; cards: string[] };
  stock_size: number;
  muertos: { size: number; status: string; taken: boolean }[];
  taken_single: string | null;
  scores: { hand: number[]; totals: number[] };
  end_reason: string | null;
  closer: number;
  winner: number;
  match_winner: number;
  viewer: number | null;
  hand: string[] | null;
  team: number | null;
  hands?: string[][];
}

export interface HandResult {
  reason: string;
  closer: number;
  scores: ScoreLine[];
  winner: number;
  totals: number[];
  match_over: boolean;
  match_winner: number;
  hand_no: number;
  hands?: string[][];
}

export interface ScoreLine {
  table: number;
  canastas: string[];
  canasta_bonus: number;
  close_bonus: number;
  hand: number;
  muerto_penalty: number;
  total: number;
}

function removeCards(hand: string[], cards: string[]): string[] {
  const out = [...hand];
  for (const c of cards) {
    const i = out.indexOf(c);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

function bump(list: number[], i: number, by: number): number[] {
  const out = [...list];
  out[i] = (out[i] ?? 0) + by;
  return out;
}

/** Returns the new view (the old one is never changed). */
export function applyEvent(g: GameView, e: any): GameView {
  const own = e.seat !== undefined && e.seat === g.viewer;
  switch (e.type) {
    case "drew":
      return {
        ...g, phase: "play", stock_size: Math.max(0, g.stock_size - 1),
        hand_sizes: bump(g.hand_sizes, e.seat, 1),
        hand: own && g.hand && e.card ? [...g.hand, e.card] : g.hand,
        muertos: startTurn(g, e.seat),
      };
    case "took_pile": {
      const left = Math.max(0, g.discard.size - e.count);
      let cards = g.discard.cards.slice(0, Math.max(0, g.discard.cards.length - e.count));
      if (g.discard.kind === "closed") cards = [];
      return {
        ...g, phase: "play", hand_sizes: bump(g.hand_sizes, e.seat, e.count),
        hand: own && g.hand && e.cards ? [...g.hand, ...e.cards] : g.hand,
        discard: { ...g.discard, size: left, cards },
        taken_single: null, muertos: startTurn(g, e.seat),
      };
    }
    case "melded": {
      const team = e.meld.owner;
      const melds = g.melds.map((m) => [...m]);
      while (melds.length <= team) melds.push([]);
      melds[team].push({ ...e.meld, index: melds[team].length });
      return {
        ...g, melds, hand_sizes: bump(g.hand_sizes, e.seat, -e.cards.length),
        hand: own && g.hand ? removeCards(g.hand, e.cards) : g.hand,
      };
    }
    case "added": {
      const melds = g.melds.map((m) => [...m]);
      melds[e.team][e.index] = { ...e.meld, index: e.index };
      return {
        ...g, melds, hand_sizes: bump(g.hand_sizes, e.seat, -e.cards.length),
        hand: own && g.hand ? removeCards(g.hand, e.cards) : g.hand,
      };
    }
    case "discarded": {
      const closed = g.discard.kind === "closed";
      return {
        ...g, phase: "draw", turn: (e.seat + 1) % g.players,
        hand_sizes: bump(g.hand_sizes, e.seat, -1),
        hand: own && g.hand ? removeCards(g.hand, [e.card]) : g.hand,
        discard: {
          ...g.discard, size: g.discard.size + 1,
          cards: closed ? [e.card] : [...g.discard.cards, e.card],
        },
        taken_single: null,
      };
    }
    case "muerto_taken": {
      const muertos = g.muertos.map((m, i) =>
        i === e.team ? { size: 0, status: "taken", taken: true } : m);
      return {
        ...g, muertos, hand_sizes: bump(g.hand_sizes, e.seat, e.count),
        hand: own && g.hand && e.cards ? [...g.hand, ...e.cards] : g.hand,
      };
    }
    case "muerto_to_stock": {
      const size = g.muertos[e.team]?.size ?? 0;
      const muertos = g.muertos.map((m, i) =>
        i === e.team ? { size: 0, status: "stock", taken: false } : m);
      return { ...g, muertos, stock_size: g.stock_size + size };
    }
    case "hand_started":
      return {
        ...g, phase: "draw", turn: e.first, first: e.first, hand_no: e.hand_no,
        hand_sizes: e.hand_sizes, hand: e.hand, melds: g.teams.length ? emptyMelds(g) : [],
        stock_size: e.stock_size, discard: e.discard, taken_single: null,
        muertos: e.muerto_sizes.length
          ? e.muerto_sizes.map((size: number) => ({ size, status: "table", taken: false }))
          : g.muertos.map(() => ({ size: 0, status: "none", taken: false })),
        end_reason: null, closer: -1, winner: -1, hands: undefined,
      };
    case "hand_ended":
      return {
        ...g, phase: e.match_over ? "over" : "hand_over", closer: e.closer,
        end_reason: e.reason, winner: e.winner, match_winner: e.match_winner,
        scores: { hand: e.scores.map((s: ScoreLine) => s.total), totals: e.totals },
      };
    default:
      return g;
  }
}

function emptyMelds(g: GameView): MeldView[][] {
  const sides = Math.max(...g.teams) + 1;
  return Array.from({ length: sides }, () => []);
}

function startTurn(g: GameView, seat: number): GameView["muertos"] {
  // A muerto picked up indirectly counts as used once its taker starts a turn; the
  // client only shows "taken", so nothing changes here beyond a copy.
  void seat;
  return g.muertos;
}

export function teamOf(g: GameView, seat: number): number {
  return g.teams[seat] ?? seat;
}

/** The card names appearing in the legal meld/add commands: the playable cards. */
export function playableCards(commands: any[]): Set<string> {
  const out = new Set<string>();
  for (const c of commands) {
    if (c.type === "meld" || c.type === "add") c.cards.forEach((n: string) => out.add(n));
    if (c.type === "take_discard" && c.meld) c.meld.forEach((n: string) => out.add(n));
  }
  return out;
}

export function sameCards(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}
