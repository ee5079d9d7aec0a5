// The felt of a replay step, read-only: every seat with its hand (open, or backs when
// the chosen point of view may not see it), the melds of each side, the stock, the pile
// and the muertos. The cards the step moved are lit.
import { h, type VNode } from "preact";
import { cardLabel, sortCards } from "../../cards";
import type { MeldView } from "../../game";
import { t } from "../../i18n";
import { canastaBadge, meldLabel } from "../table/melds";
import { vBack, vFace, vRaw } from "../table/vcards";
import type { Frame, ReplayPlayer } from "./types";

export interface BoardInput {
  frame: Frame;
  players: ReplayPlayer[];
  pov: number | "all"; // whose eyes; "all": every hand open
  bottom: number; // the seat drawn at the bottom
  name: (seat: number) => string;
  side: (team: number) => string;
}

/** What the step touched: the card drawn, the melds changed, the discard. */
function lit(f: Frame): { cards: Set<string>; melds: Set<string>; discard: boolean } {
  const cards = new Set<string>();
  const melds = new Set<string>();
  let discard = false;
  for (const e of f.events) {
    if (e.type === "drew" && e.card) cards.add(e.card);
    if (e.type === "took_pile") (e.cards ?? []).forEach((c: string) => cards.add(c));
    if (e.type === "melded") melds.add(`${e.meld.owner}.${(f.state.melds[e.meld.owner]?.length ?? 1) - 1}`);
    if (e.type === "added") melds.add(`${e.team}.${e.index}`);
    if (e.type === "discarded") discard = true;
  }
  return { cards, melds, discard };
}

function seatView(b: BoardInput, seat: number, mine: boolean, hot: Set<string>): VNode<any> {
  const s = b.frame.state;
  const hand = s.hands[seat] ?? [];
  const open = b.pov === "all" || b.pov === seat;
  const p = b.players.find((x) => x.seat === seat);
  const turn = s.phase !== "hand_over" && s.phase !== "over" && s.turn === seat;
  const acted = b.frame.seat === seat;
  return h("section", {
    key: `seat${seat}`, class: `rp-seat ${mine ? "bottom" : ""} ${turn ? "turn" : ""} ${acted ? "acted" : ""} ${open ? "" : "closed"}`,
    "data-seat": seat, "aria-label": t("replay.handOf", { who: b.name(seat), n: hand.length }),
  },
  h("header", { class: "rp-seat-head" },
    vRaw(b.name(seat), "rp-name"),
    p?.bot ? h("span", { class: "tag tiny" }, t("table.bot")) : null,
    turn ? h("span", { class: "tag tiny turn" }, t("replay.onTurn")) : null,
    h("span", { class: "rp-count", "data-raw": "" }, String(hand.length))),
  open
    ? h("div", { class: "rp-hand", "data-open": "true" }, ...sortCards(hand, "suit").map((c, i) =>
      vFace(c, `${mine ? "small" : "mini"} ${hot.has(c) && acted ? "last" : ""}`, undefined, { key: `${c}${i}`, "data-card": c })))
    : h("div", { class: "rp-hand", "data-open": "false" }, hand.length ? vBack("tiny") : null,
      h("span", { class: "rp-hidden" }, t("replay.hidden", { n: hand.length }))));
}

function meldView(m: MeldView, team: number, i: number, hot: boolean): VNode<any> {
  return h("li", {
    key: `m${team}.${i}`, role: "img", "aria-label": meldLabel(m), "data-team": team, "data-meld": i,
    class: `meld ${m.canasta ? `canasta ${m.canasta}` : ""} ${hot ? "last" : ""}`,
  }, h("span", { class: "meld-cards", "aria-hidden": "true" }, ...m.cards.map((c, k) => {
    const [card, slot] = c.split("=");
    return vFace(card, `mini ${slot ? "wild-slot" : ""}`, slot, { key: k });
  })), canastaBadge(m.canasta) ?? h("span", { class: "meld-size", "data-raw": "" }, String(m.size)));
}

function zone(b: BoardInput, team: number, hot: Set<string>): VNode<any> {
  const melds = b.frame.state.melds[team] ?? [];
  return h("section", { key: `zone${team}`, class: "rp-zone", "aria-label": t("table.meldsOf", { side: b.side(team) }) },
    h("h3", null, t("table.meldsOf", { side: b.side(team) })),
    melds.length ? h("ul", { class: "rp-melds" }, ...melds.map((m, i) => meldView(m, team, i, hot.has(`${team}.${i}`))))
      : h("p", { class: "empty small" }, t("table.noMelds")));
}

function centre(b: BoardInput, discardLit: boolean): VNode<any> {
  const s = b.frame.state;
  const d = s.discard;
  const shown = d.kind === "closed" ? d.cards.slice(-1) : d.cards.slice(-6);
  const top = d.cards[d.cards.length - 1];
  return h("div", { class: "rp-centre" },
    h("div", { class: "rp-pile", id: "rp-stock", role: "img", "aria-label": t("replay.stockLabel", { n: s.stock_size }) },
      s.stock_size ? vBack("small") : h("span", { class: "card ghost small", "aria-hidden": "true" }),
      h("span", { class: "pile-count", "data-raw": "" }, String(s.stock_size)),
      h("span", { class: "pile-name" }, t("table.stock"))),
    h("div", {
      class: "rp-pile discard", id: "rp-discard", role: "img",
      "aria-label": d.size ? t("replay.pileLabel", { n: d.size, card: top ? cardLabel(top) : "" }) : t("table.pileEmpty"),
    },
    h("span", { class: "fanned" }, shown.length ? shown.map((c, i) =>
      vFace(c, `small ${i === shown.length - 1 && discardLit ? "last" : ""}`, undefined, { key: `${d.size - shown.length + i}` }))
      : h("span", { class: "card ghost small", "aria-hidden": "true" })),
    h("span", { class: "pile-count", "data-raw": "" }, String(d.size)),
    h("span", { class: "pile-name" }, t(d.kind === "closed" ? "table.pileClosed" : "table.pile"))),
    ...s.muertos.map((m, team) => m.status === "none" ? null : h("div", {
      key: `mu${team}`, class: `rp-pile muerto ${m.status}`, role: "img",
      "aria-label": `${t("table.muertoOf", { side: b.side(team) })}: ${m.status === "table" ? t("table.muertoWaiting", { n: m.size })
        : m.status === "stock" ? t("table.muertoStock") : t("table.muertoTaken")}`,
    }, m.status === "table" ? vBack("small") : h("span", { class: "card ghost small", "aria-hidden": "true" }),
    h("span", { class: "pile-name" }, t("table.muerto")))));
}

export function boardView(b: BoardInput): VNode<any> {
  const s = b.frame.state;
  const hot = lit(b.frame);
  const n = s.players;
  const others = Array.from({ length: n - 1 }, (_, i) => (b.bottom + 1 + i) % n);
  const myTeam = s.teams[b.bottom];
  const teams = Array.from(new Set(s.teams)).sort((x, y) => (x === myTeam ? 1 : 0) - (y === myTeam ? 1 : 0));
  return h("div", { class: "rp-board felt", id: "rp-board" },
    h("div", { class: "rp-others" }, ...others.map((seat) => seatView(b, seat, false, hot.cards))),
    centre(b, hot.discard),
    h("div", { class: "rp-zones" }, ...teams.map((tm) => zone(b, tm, hot.melds))),
    seatView(b, b.bottom, true, hot.cards));
}
