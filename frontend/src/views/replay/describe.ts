// A step of the replay in words: "Ana roba 7♥ del mazo", "Luis baja 3 cartas: …".
import { cardLabel, cardsLabel } from "../../cards";
import { t, tk } from "../../i18n";
import type { Frame, ReplayHand } from "./types";

export type Namer = (seat: number) => string;

function eventText(e: any, name: Namer, side: Namer, size: (team: number) => number): string | null {
  const who = typeof e.seat === "number" ? name(e.seat) : "";
  switch (e.type) {
    case "drew": return t("replay.drew", { who, card: cardLabel(e.card) });
    case "took_pile": return t("move.tookPile", { who, n: e.cards?.length ?? e.count ?? 0 });
    case "melded": return t("replay.melded", { who, n: e.cards.length, cards: cardsLabel(e.cards) });
    case "added": return t("replay.added", { who, n: e.cards.length, cards: cardsLabel(e.cards) });
    case "discarded": return t("move.discarded", { who, card: cardLabel(e.card) });
    case "muerto_taken": return t(e.direct ? "move.muertoDirect" : "move.muertoIndirect", { who });
    case "muerto_to_stock": return t("move.muertoToStock");
    // n: the players on the closing side, so a pair takes the plural verb ("cerraron").
    case "hand_ended": return tk(`result.reason.${e.reason}`, "result.reason.other",
      { side: e.closer >= 0 ? side(e.closer) : "", n: e.closer >= 0 ? size(e.closer) : 1 });
    default: return null;
  }
}

/** The deal: who dealt, who cut and where. */
export function dealText(hand: ReplayHand, name: Namer): string {
  const parts = [t("replay.dealt", { n: hand.hand_no, who: name(hand.dealer) })];
  if (hand.cut !== null && hand.cutter !== null) {
    parts.push(t(hand.cut_by === "player" ? "replay.cutBy" : "replay.cutAuto", { who: name(hand.cutter), n: hand.cut }));
  }
  return parts.join(" · ");
}

/** Every sentence of one step, in order. */
export function stepText(hand: ReplayHand, frame: Frame, name: Namer, side: Namer, size: (team: number) => number): string {
  if (frame.n === 0) return dealText(hand, name);
  const lines = frame.events.map((e) => eventText(e, name, side, size)).filter((x): x is string => !!x);
  return lines.length ? lines.join(" · ") : t("replay.noEvent");
}
