// The choreography of each move: what moves from where to where, and its sound. Runs
// after the render that shows the move, with the boxes measured just before it.
import type { GameView } from "../../game";
import { t } from "../../i18n";
import { appear, banner, flush, fly, glide, planned, pulse, type Rects } from "./motion";
import { play, type Sound } from "./sound";

export interface FxContext {
  root: HTMLElement;
  before: Rects;
  me: number | null;
  game: GameView;
  freshKey: string | null;
  animate: boolean;
}

// Test hook: each move shown and how many animations it started.
const fxLog: { type: string; seat: number | null; anims: number }[] = ((window as any).__fxLog ??= []);

const q = (root: HTMLElement, sel: string) => root.querySelector<HTMLElement>(sel);

function box(c: FxContext, fx: string): DOMRect | null {
  return c.before.get(fx) ?? q(c.root, `[data-fx="${fx}"]`)?.getBoundingClientRect() ?? null;
}

/** Where a player's cards are: your hand, or the seat of anyone else. */
function holder(c: FxContext, seat: number): DOMRect | null {
  return seat === c.me ? box(c, "hand") : box(c, `seat-${seat}`);
}

/** Boxes of hand cards that were there before the render and are gone now. */
function leftHand(c: FxContext): DOMRect[] {
  const now = new Set([...c.root.querySelectorAll<HTMLElement>("#hand [data-key]")].map((e) => `card:${e.dataset.key}`));
  return [...c.before.entries()].filter(([k]) => k.startsWith("card:") && !now.has(k)).map(([, r]) => r);
}

function newHandCards(c: FxContext): HTMLElement[] {
  return [...c.root.querySelectorAll<HTMLElement>("#hand [data-key]")].filter((e) => !c.before.has(`card:${e.dataset.key}`));
}

function meldEl(c: FxContext, team: number, index: number): HTMLElement | null {
  return q(c.root, `[data-fx="meld-${team}-${index}"]`);
}

function onEvent(c: FxContext, e: any, moved: Set<Element>): void {
  const mine = e.seat !== undefined && e.seat === c.me;
  const stock = box(c, "stock");
  switch (e.type) {
    case "drew": {
      const card = mine && c.freshKey ? q(c.root, `#hand [data-key="${CSS.escape(c.freshKey)}"]`) : null;
      const to = holder(c, e.seat);
      if (card && stock) { glide(card, stock, 0, true); moved.add(card); } else if (stock && to) fly(stock, to, null);
      break;
    }
    case "took_pile": {
      const pile = box(c, "pile");
      const to = holder(c, e.seat);
      if (!pile) break;
      if (mine) newHandCards(c).forEach((el, i) => { glide(el, pile, i * 30, true); moved.add(el); });
      else if (to) for (let i = 0; i < Math.min(3, e.count ?? 1); i++) fly(pile, to, null, i * 70);
      break;
    }
    case "melded":
    case "added": {
      const team = e.type === "melded" ? e.meld.owner : e.team;
      const index = e.type === "melded" ? (c.game.melds[team]?.length ?? 1) - 1 : e.index;
      const el = meldEl(c, team, index);
      if (!el) break;
      const from = mine ? leftHand(c)[0] ?? holder(c, e.seat) : holder(c, e.seat);
      let landed = 380; // when the cards are in place: the canasta's moment comes then
      if (e.type === "melded") {
        if (from) glide(el, from, 0, true); else appear(el);
      } else if (from) {
        const to = el.getBoundingClientRect();
        (e.cards as string[]).forEach((card, i) => fly(from, to, card, i * 60, true));
        landed = 420 + (e.cards.length - 1) * 60;
      }
      if (e.newCanasta) {
        pulse(el, true, landed);
        banner(el.getBoundingClientRect(), t("fx.canasta"), landed);
      }
      moved.add(el);
      break;
    }
    case "discarded": {
      const top = q(c.root, '[data-fx="pile-top"]');
      const from = mine ? leftHand(c)[0] ?? holder(c, e.seat) : holder(c, e.seat);
      const pile = box(c, "pile");
      if (top && from) { glide(top, from, 0, true); moved.add(top); }
      // The next player took the pile in the same render: the card still flies to it.
      else if (from && pile) fly(from, pile, e.card);
      break;
    }
    case "muerto_taken": {
      const from = box(c, `muerto-${e.team}`);
      const to = holder(c, e.seat);
      if (from && to) for (let i = 0; i < 3; i++) fly(from, to, null, i * 80);
      if (mine) newHandCards(c).forEach((el) => moved.add(el));
      break;
    }
    case "hand_started": {
      if (!stock) break;
      for (let s = 0; s < c.game.players; s++) {
        if (s === c.me) continue;
        const to = box(c, `seat-${s}`);
        if (to) for (let i = 0; i < 3; i++) fly(stock, to, null, i * 90 + s * 30);
      }
      newHandCards(c).forEach((el, i) => { glide(el, stock, i * 25); moved.add(el); });
      break;
    }
  }
}

/** Animate (when motion is on) and sound (when not muted) the moves of one render;
 * `beforeStart` runs once every box is read, just before the animations start. */
export function runFx(c: FxContext, events: any[], beforeStart?: () => void): void {
  const moved = new Set<Element>();
  const sounds = new Set<string>();
  for (const e of events) {
    soundsOf(c, e, sounds);
    const at = planned();
    if (c.animate) onEvent(c, e, moved);
    fxLog.push({ type: e.type, seat: e.seat ?? null, anims: planned() - at });
  }
  if (c.animate) {
    // Every other card of your hand that changed place glides there (sorting, a draw).
    c.root.querySelectorAll<HTMLElement>("#hand [data-key]").forEach((el) => {
      const old = c.before.get(`card:${el.dataset.key}`);
      if (old && !moved.has(el)) glide(el, old);
    });
  }
  beforeStart?.();
  if (c.animate) flush();
  // One sound per render (a bot's draw, meld and discard arrive together), the loudest;
  // your turn's chime besides.
  const main = (["canasta", "win", "lose", "meld", "discard", "draw"] as Sound[]).find((s) => sounds.has(s));
  if (main) play(main);
  if (sounds.has("turn")) play("turn");
}

function soundsOf(c: FxContext, e: any, sounds: Set<string>): void {
  switch (e.type) {
    case "drew": case "took_pile": sounds.add("draw"); break;
    case "melded": case "added": sounds.add(e.newCanasta ? "canasta" : "meld"); break;
    case "discarded":
      sounds.add("discard");
      if ((e.seat + 1) % c.game.players === c.me) sounds.add("turn");
      break;
    case "hand_started": if (e.first === c.me) sounds.add("turn"); break;
    case "hand_ended": {
      const myTeam = c.me === null ? -1 : c.game.teams[c.me];
      if (myTeam >= 0) sounds.add((e.match_over ? e.match_winner : e.winner) === myTeam ? "win" : "lose");
      break;
    }
  }
}

/** The elements a move will fly into place (your drawn cards, a new meld, the pile's new
 * top), hidden until their animation starts in the next frame. Queries only: no layout. */
export function hideIncoming(c: FxContext, events: any[]): HTMLElement[] {
  const out = new Set<HTMLElement>();
  for (const e of events) {
    const mine = e.seat !== undefined && e.seat === c.me;
    if (e.type === "discarded") {
      const top = q(c.root, '[data-fx="pile-top"]');
      if (top) out.add(top);
    } else if (e.type === "melded") {
      const el = meldEl(c, e.meld.owner, (c.game.melds[e.meld.owner]?.length ?? 1) - 1);
      if (el) out.add(el);
    } else if ((mine && ["drew", "took_pile", "muerto_taken"].includes(e.type)) || e.type === "hand_started") {
      newHandCards(c).forEach((el) => out.add(el));
    }
  }
  out.forEach((el) => { el.style.visibility = "hidden"; });
  return [...out];
}
