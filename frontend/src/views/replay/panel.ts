// Around the felt: the step controls (first, back, play, forward, last, the slider, the
// speed), the score sheet hand by hand, the fairness data and the exports.
import { h, type VNode } from "preact";
import { fmt } from "../../dom";
import type { HandResult } from "../../game";
import { t } from "../../i18n";
import { scoreSheet } from "../table/sheet";
import type { ReplayFrames, ReplayHand } from "./types";

export const SPEEDS = [0.5, 1, 2] as const;

export interface ControlsInput {
  n: number; // the step's index in the hand
  last: number; // the hand's last index
  atStart: boolean; // the first step of the first hand
  atEnd: boolean; // the last step of the last hand
  playing: boolean;
  speed: number;
  go: (n: number) => void;
  step: (by: 1 | -1) => void;
  toggle: () => void;
  setSpeed: (s: number) => void;
}

// Small line icons (the table draws its own the same way: SVG paths, no icon font).
const ICONS: Record<string, string> = {
  first: "M6 5v14 M18 5l-9 7 9 7z",
  prev: "M16 5l-9 7 9 7z",
  next: "M8 5l9 7-9 7z",
  last: "M18 5v14 M6 5l9 7-9 7z",
  play: "M7 4l13 8-13 8z",
  pause: "M7 5h3v14H7z M14 5h3v14h-3z",
};

function icon(name: string): VNode<any> {
  return h("svg", { viewBox: "0 0 24 24", width: 20, height: 20, "aria-hidden": "true" },
    h("path", { d: ICONS[name], fill: "currentColor", stroke: "currentColor", "stroke-width": 1.5, "stroke-linejoin": "round" }));
}

/** The table's "leave" mark (a door and an arrow out), drawn in lines as the table's
 * toolbar draws it: the replay's way back to the lobby, alone on a phone. */
export function exitIcon(): VNode<any> {
  return h("svg", { viewBox: "0 0 24 24", width: 20, height: 20, "aria-hidden": "true", class: "rp-exit-ic" },
    h("path", { d: "M14 4h5v16h-5 M10 8l-4 4 4 4 M6 12h10", fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" }));
}

function tool(id: string, label: string, ic: string, onclick: () => void, disabled = false, pressed?: boolean): VNode<any> {
  return h("button", {
    type: "button", id, class: "icon-btn rp-tool", "aria-label": label, title: label, disabled, onclick,
    "aria-pressed": pressed === undefined ? undefined : String(pressed),
  }, icon(ic));
}

export function controlsView(c: ControlsInput): VNode<any> {
  return h("div", { class: "rp-controls", role: "group", "aria-label": t("replay.controls") },
    h("div", { class: "rp-buttons" },
      tool("rp-first", t("replay.first"), "first", () => c.go(0), c.n === 0),
      tool("rp-prev", t("replay.prev"), "prev", () => c.step(-1), c.atStart),
      tool("rp-play", t(c.playing ? "replay.pause" : "replay.play"), c.playing ? "pause" : "play", c.toggle, c.atEnd && !c.playing, c.playing),
      tool("rp-next", t("replay.next"), "next", () => c.step(1), c.atEnd),
      tool("rp-last", t("replay.last"), "last", () => c.go(c.last), c.n === c.last),
      h("div", { class: "rp-speed", role: "group", "aria-label": t("replay.speed") }, ...SPEEDS.map((s) =>
        h("button", {
          key: s, type: "button", class: `rp-speed-btn ${c.speed === s ? "on" : ""}`, "aria-pressed": String(c.speed === s),
          "data-speed": s, onclick: () => c.setSpeed(s),
        }, t("replay.speedN", { n: s === 0.5 ? "½" : String(s) }))))),
    h("div", { class: "rp-slide" },
      h("input", {
        type: "range", id: "rp-slider", min: 0, max: c.last, step: 1, value: c.n, "aria-label": t("replay.slider"),
        "aria-valuetext": t("replay.stepOf", { n: c.n, total: c.last }),
        oninput: (e: Event) => c.go(Number((e.target as HTMLInputElement).value)),
      }),
      h("span", { class: "rp-counter", id: "rp-counter", "data-n": c.n, "data-last": c.last }, t("replay.stepOf", { n: c.n, total: c.last }))));
}

export interface SheetInput {
  data: ReplayFrames;
  hand: number; // index of the hand shown
  atHandEnd: boolean; // the step shown is the hand's last
  side: (team: number) => string;
  pick: (hand: number) => void;
}

/** The last hand_ended event of a hand, as the table's score sheet reads it. */
export function handResult(hand: ReplayHand): HandResult | null {
  const last = hand.frames[hand.frames.length - 1];
  const e = last?.events.find((x) => x.type === "hand_ended");
  return e ? { ...e, hand_no: hand.hand_no } : null;
}

/** Every hand's points and the running totals, as far as the step shown: the hands
 * after it (and the one shown, until its end) keep their points to themselves. */
export function sheetView(s: SheetInput): VNode<any> {
  const teams = s.data.hands[0]?.hand_scores.map((_, i) => i) ?? [];
  const done = (i: number) => i < s.hand || (i === s.hand && s.atHandEnd);
  const shownTotals = [...s.data.hands.keys()].filter(done).pop();
  const totals = shownTotals === undefined ? teams.map(() => 0) : s.data.hands[shownTotals].totals;
  const result = s.atHandEnd ? handResult(s.data.hands[s.hand]) : null;
  return h("section", { class: "rp-sheet", "aria-labelledby": "rp-sheet-title" },
    h("h2", { id: "rp-sheet-title" }, t("replay.sheet")),
    h("table", { class: "rp-scores", id: "rp-scores" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, t("replay.handCol")),
        ...teams.map((tm) => h("th", { scope: "col", class: s.data.winner_team === tm && shownTotals === s.data.hands.length - 1 ? "win" : undefined }, h("span", { "data-raw": "" }, s.side(tm)))))),
      h("tbody", null, ...s.data.hands.map((hd, i) => h("tr", { key: hd.hand_no, class: i === s.hand ? "here" : undefined, "data-hand": hd.hand_no },
        h("th", { scope: "row" }, h("button", { type: "button", class: "linkish", onclick: () => s.pick(i) }, t("table.handN", { n: hd.hand_no }))),
        ...teams.map((tm) => h("td", { "data-raw": "" }, done(i) ? fmt(hd.hand_scores[tm]) : "—"))))),
      h("tfoot", null, h("tr", { class: "total", id: "rp-totals", "data-totals": totals.join(",") },
        h("th", { scope: "row" }, t("score.matchTotal")), ...teams.map((tm) => h("td", { "data-raw": "" }, fmt(totals[tm] ?? 0)))))),
    result ? scoreSheet(result, s.side) : null);
}

export function fairView(hand: ReplayHand, name: (seat: number) => string): VNode<any> {
  const cut = hand.cut !== null && hand.cutter !== null
    ? t(hand.cut_by === "player" ? "replay.cutBy" : "replay.cutAuto", { who: name(hand.cutter), n: hand.cut }) : t("replay.noCut");
  return h("details", { class: "rp-fair", id: "rp-fair" },
    h("summary", null, t("replay.fairTitle", { n: hand.hand_no })),
    h("dl", null,
      h("dt", null, t("replay.commitment")), h("dd", null, h("code", { "data-raw": "" }, hand.commitment)),
      h("dt", null, t("replay.seed")), h("dd", null, h("code", { "data-raw": "" }, hand.server_seed || "—")),
      h("dt", null, t("replay.cut")), h("dd", null, cut)),
    h("p", { class: "hint" }, t("replay.fairHow")),
    h("p", { class: "hint" }, t("replay.fairCheck")));
}

export function exportsView(gameId: string, copy: () => void): VNode<any> {
  const base = `/api/games/${encodeURIComponent(gameId)}`;
  return h("div", { class: "rp-exports row wrap" },
    h("a", { class: "btn small", id: "rp-json", href: `${base}/replay?download=1`, download: `buraco-${gameId}.json` }, t("replay.downloadJson")),
    h("a", { class: "btn small", id: "rp-txt", href: `${base}/replay.txt`, download: `buraco-${gameId}.txt` }, t("replay.downloadTxt")),
    h("button", { type: "button", class: "btn small", id: "rp-copy", onclick: copy }, t("replay.copyLink")));
}
