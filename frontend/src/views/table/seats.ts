// Seats around the felt: you at the bottom; in pairs your partner opposite (top) and the
// opponents left and right; 3 or 4 individual players around the table in turn order
// (turns go clockwise: bottom, left, top, right). Spectators sit on seat 0's side.
import { h, type VNode } from "preact";
import { ratingNum, t } from "../../i18n";
import { cosmetic, emoteBubble } from "./emotes";
import { strengthName, type BotStrength } from "../../botStrength";
import { vBack, vRaw } from "./vcards";
import { mmss } from "./clock";

export type Pos = "bottom" | "left" | "top" | "right";

const AROUND: Record<number, Pos[]> = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
};

/** Where seat `s` sits for a viewer at `me` (null: a spectator, who sees seat 0's side). */
export function seatPos(players: number, me: number | null, s: number): Pos {
  const k = (s - (me ?? 0) + players) % players;
  return (AROUND[players] ?? AROUND[4])[k] ?? "top";
}

export interface SeatInfo {
  seat: number;
  pos: Pos;
  name: string;
  avatar: string; // the sku of the avatar the player wears
  back: string; // the sku of the player's card back
  emote: string | null; // an emote being shown at the seat
  onMenu: (() => void) | null; // another person's seat: profile, gift, friend, block
  count: number;
  turn: boolean;
  you: boolean;
  partner: boolean;
  bot: boolean;
  strength: string | null; // a bot's strength, when the table says
  rating?: number | null; // the player's rating here (none for bots and guests)
  provisional?: boolean; // the rating still rests on few games: shown with a "?"
  awayUntil: number | null; // no socket: a bot takes over at this server time
  muerto: string | null; // the team's muerto: "table" (waiting), "taken", "stock"
  now: number;
}

export function seatView(s: SeatInfo): VNode<any> {
  const label = [s.name, s.you ? t("table.you") : "", s.partner ? t("table.partner") : "",
    t("table.cardsInHand", { n: s.count }), s.turn ? t("table.theirTurn") : "",
    s.awayUntil ? t("table.away") : ""].filter(Boolean).join(", ");
  const backs = Math.min(s.count, s.pos === "top" ? 7 : s.pos === "bottom" ? 0 : 4);
  return h("div", {
    key: `seat${s.seat}`, class: `seat pos-${s.pos} ${s.turn ? "turn" : ""} ${s.awayUntil ? "away" : ""}`,
    role: "group", "aria-label": label, "data-seat": s.seat, "data-fx": `seat-${s.seat}`, "data-region": "seat",
  },
  h(s.onMenu ? "button" : "span", {
    class: `avatar ${s.onMenu ? "seat-menu-btn" : ""}`, "data-avatar": s.avatar,
    ...(s.onMenu ? { type: "button", onClick: s.onMenu, "aria-label": t("seat.menu", { name: s.name }), "aria-haspopup": "dialog" } : {}),
  },
    h("img", { src: cosmetic(s.avatar), alt: "", width: 44, height: 44 })),
  // Beside the seat (never inside the seat menu's button: it is not part of it).
  s.emote ? emoteBubble(s.emote) : null,
  h("div", { class: "seat-info" },
    h("span", { class: "seat-name" }, vRaw(s.name, "nm")),
    h("span", { class: "seat-tags" },
      s.partner ? h("span", { class: "tag tiny partner" }, t("table.partner")) : null,
      s.rating != null ? h("span", { class: "tag tiny rating", title: t(s.provisional ? "rating.provisional" : "rating.title"), "data-raw": "", "data-rating": "" },
        `${ratingNum(s.rating)}${s.provisional ? "?" : ""}`) : null,
      s.bot ? h("span", { class: "tag tiny bot" }, t("table.bot"),
        s.strength ? h("span", { class: "strength" }, " · ", strengthName(s.strength as BotStrength)) : null) : null,
      s.awayUntil ? h("span", { class: "tag tiny warn", "data-away": s.awayUntil },
        t("table.awayFor", { s: mmss(Math.max(0, Math.ceil(s.awayUntil - s.now))) })) : null,
      s.muerto && s.muerto !== "none" ? h("span", {
        class: `tag tiny muerto-tag ${s.muerto}`,
        title: s.muerto === "taken" ? t("table.muertoTaken") : s.muerto === "stock" ? t("table.muertoStock") : t("table.muerto"),
      }, t("table.muertoBadge"), s.muerto === "taken" ? " ✓" : "") : null)),
  s.pos !== "bottom" ? h("span", { class: "backs", role: "img", "aria-label": t("table.cardsInHand", { n: s.count }) },
    ...Array.from({ length: backs }, (_, i) => vBack("tiny", { key: i, "data-back": s.back, style: { backgroundImage: `url(${cosmetic(s.back)})` } })),
    h("span", { class: "count", "aria-hidden": "true", "data-raw": "" }, String(s.count))) : null,
  s.turn ? h("span", { class: "clock", "data-region": "clock", "data-clock": s.seat, "data-raw": "", hidden: true }) : null);
}
