// The replay viewer (#/replay/{game_id}?hand=&n=&seat=): a finished game step by step,
// every hand open or one seat's eyes, the score sheet alongside. The place shown is kept
// in the address, so a copied link opens at the same step.
import { h, render, type VNode } from "preact";
import "./replay.css";
import { ApiError, errorText, get } from "../../api";
import { t } from "../../i18n";
import { app } from "../../state";
import { toast } from "../../ui";
import { playerName } from "../../words";
import type { View } from "../../view";
import { boardView } from "./board";
import { stepText } from "./describe";
import { parseReplayArg, replayHash } from "./link";
import { controlsView, exitIcon, exportsView, fairView, sheetView } from "./panel";
import type { ReplayFrames } from "./types";

const STEP_MS = 1400; // one step at 1x
const ARCHIVING_TRIES = 30; // a game just over: asked again each second while its archive is written

interface RS {
  data: ReplayFrames | null;
  error: string;
  hand: number; // index into data.hands
  n: number; // index into the hand's frames
  pov: number | "all";
  playing: boolean;
  speed: number;
  sheetOpen: boolean; // phone: the score sheet over the felt
}

export function replayView(el: HTMLElement, arg: string): View {
  const { gameId, at } = parseReplayArg(arg);
  const s: RS = { data: null, error: "", hand: 0, n: 0, pov: at.seat ?? "all", playing: false, speed: 1, sheetOpen: false };
  let timer: number | undefined;
  let gone = false;

  const name = (seat: number): string => s.data?.players.find((p) => p.seat === seat)?.name ?? t("table.seatN", { n: seat + 1 });
  // A side's players' names, each worded as the page words it (a guest's number).
  const side = (team: number): string => (s.data?.players ?? []).filter((p) => p.team === team).map((p) => playerName(p.name)).join(" & ");
  const size = (team: number): number => (s.data?.players ?? []).filter((p) => p.team === team).length;
  const frames = () => s.data!.hands[s.hand].frames;
  const atEnd = () => s.hand === s.data!.hands.length - 1 && s.n === frames().length - 1;

  async function load(tries = 0): Promise<void> {
    try {
      const data: ReplayFrames = await get(`/api/games/${encodeURIComponent(gameId)}/replay/frames`);
      if (gone) return;
      s.data = data;
      const hand = data.hands.findIndex((x) => x.hand_no === at.hand);
      s.hand = hand >= 0 ? hand : 0;
      s.n = Math.min(at.n ?? 0, frames().length - 1);
      const seats = data.players.map((p) => p.seat);
      if (typeof s.pov === "number" && !seats.includes(s.pov)) s.pov = "all";
    } catch (e) {
      if (gone) return;
      // Just over, its archive being written: still loading, asked again in a second.
      if (e instanceof ApiError && e.code === "game_archiving" && tries < ARCHIVING_TRIES) {
        timer = window.setTimeout(() => void load(tries + 1), 1000);
        return;
      }
      s.error = errorText(e);
    }
    paint();
  }

  /** The address follows the step without a new history entry (and without routing). */
  function remember(): void {
    history.replaceState(history.state, "", replayHash(gameId, { hand: s.data!.hands[s.hand].hand_no, n: s.n, seat: s.pov }));
  }

  function go(n: number, hand = s.hand): void {
    s.hand = hand;
    s.n = Math.max(0, Math.min(n, frames().length - 1));
    if (s.playing && atEnd()) stop();
    remember();
    paint();
  }

  function step(by: 1 | -1): void {
    const len = frames().length;
    if (by > 0 && s.n === len - 1) {
      if (s.hand < s.data!.hands.length - 1) go(0, s.hand + 1);
      return;
    }
    if (by < 0 && s.n === 0) {
      if (s.hand > 0) go(s.data!.hands[s.hand - 1].frames.length - 1, s.hand - 1);
      return;
    }
    go(s.n + by);
  }

  function schedule(): void {
    window.clearTimeout(timer);
    if (!s.playing) return;
    timer = window.setTimeout(() => {
      if (gone || !s.playing) return;
      step(1);
      schedule();
    }, STEP_MS / s.speed);
  }

  function stop(): void {
    s.playing = false;
    window.clearTimeout(timer);
  }

  function toggle(): void {
    if (s.playing) stop();
    else {
      if (atEnd()) return;
      s.playing = true;
      schedule();
    }
    paint();
  }

  async function copy(): Promise<void> {
    const link = location.href;
    try {
      await navigator.clipboard.writeText(link);
      toast(t("replay.copied"), "ok");
    } catch {
      // No clipboard (an insecure page, a refused permission): the link, chosen, to copy by hand.
      const box = document.getElementById("rp-link") as HTMLInputElement | null;
      if (box) {
        box.hidden = false;
        box.value = link;
        box.select();
      }
      toast(t("replay.copyByHand"), "info");
    }
  }

  function onKey(e: KeyboardEvent): void {
    if (!s.data || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement | null;
    // The slider and the selects move on their own; a text field keeps its keys.
    if (target && (target.id === "rp-slider" || ["SELECT", "INPUT", "TEXTAREA"].includes(target.tagName))) return;
    const keys: Record<string, () => void> = {
      ArrowRight: () => step(1), ArrowLeft: () => step(-1),
      Home: () => go(0), End: () => go(frames().length - 1),
    };
    const fn = keys[e.key];
    if (!fn) return;
    e.preventDefault();
    if (s.playing) stop();
    fn();
  }

  /** A choice made in a selector hands the arrow keys back to the steps. */
  function release(e: Event): void {
    (e.target as HTMLElement).blur();
  }

  function head(): VNode<any> {
    const d = s.data!;
    return h("header", { class: "rp-head" },
      h("h1", null, t("replay.title")),
      h("label", { class: "rp-pick rp-pick-hand" }, h("span", { class: "sr-only" }, t("replay.hand")),
        h("select", {
          id: "rp-hand", "aria-label": t("replay.hand"),
          onchange: (e: Event) => { stop(); go(0, Number((e.target as HTMLSelectElement).value)); release(e); },
        }, ...d.hands.map((x, i) => h("option", { key: i, value: i, selected: i === s.hand }, t("table.handN", { n: x.hand_no }))))),
      h("label", { class: "rp-pick rp-pick-pov" }, h("span", { class: "sr-only" }, t("replay.pov")),
        h("select", {
          id: "rp-pov", "aria-label": t("replay.pov"),
          onchange: (e: Event) => {
            const v = (e.target as HTMLSelectElement).value;
            s.pov = v === "all" ? "all" : Number(v);
            remember();
            paint();
            release(e);
          },
        }, h("option", { value: "all", selected: s.pov === "all" }, t("replay.allOpen")),
        ...d.players.map((p) => h("option", { key: p.seat, value: p.seat, selected: s.pov === p.seat }, t("replay.asSeat", { who: p.name }))))),
      h("button", {
        type: "button", class: "btn small rp-sheet-toggle", id: "rp-sheet-toggle", "aria-expanded": String(s.sheetOpen),
        "aria-controls": "rp-side", onclick: () => { s.sheetOpen = !s.sheetOpen; paint(); },
      }, t("replay.sheet")),
      // On a phone the way back is its mark alone, as the table's own "leave" is.
      h("a", { class: "btn ghost small", href: "#/", id: "rp-back", "aria-label": t("table.backToLobby"), title: t("table.backToLobby") },
        exitIcon(), h("span", { class: "lbl" }, t("table.backToLobby"))));
  }

  function screen(): VNode<any> {
    if (!s.data) {
      return h("section", { class: "panel" }, h("h1", null, t(s.error ? "replay.missing" : "replay.title")),
        s.error ? [h("p", { class: "error", id: "rp-error" }, s.error), h("a", { class: "btn", href: "#/" }, t("table.backToLobby"))]
          : h("p", null, t("common.loading")));
    }
    const d = s.data;
    const hand = d.hands[s.hand];
    const frame = hand.frames[s.n];
    const last = hand.frames.length - 1;
    const mine = d.players.find((p) => p.user_id !== null && p.user_id === app.me?.id)?.seat;
    const bottom = typeof s.pov === "number" ? s.pov : mine ?? 0;
    return h("div", { class: `rp-screen ${s.sheetOpen ? "sheet-open" : ""}`, "data-hand": hand.hand_no, "data-n": frame.n },
      h("div", { class: "rp-main" },
        head(),
        boardView({ frame, players: d.players, pov: s.pov, bottom, name, side }),
        h("p", { class: "rp-step", id: "rp-step", "aria-live": "polite" }, stepText(hand, frame, name, side, size)),
        controlsView({
          n: s.n, last, atStart: s.hand === 0 && s.n === 0, atEnd: atEnd(), playing: s.playing, speed: s.speed,
          go: (n) => { go(n); }, step, toggle,
          setSpeed: (v) => { s.speed = v; schedule(); paint(); },
        })),
      h("aside", { class: "rp-side", id: "rp-side", "aria-label": t("replay.sheet") },
        sheetView({ data: d, hand: s.hand, atHandEnd: s.n === last, side, pick: (i) => { stop(); go(0, i); } }),
        fairView(hand, name),
        exportsView(gameId, copy),
        h("input", { id: "rp-link", class: "rp-link", readonly: true, hidden: true, "aria-label": t("replay.copyLink") })));
  }

  function paint(): void {
    if (!gone) render(screen(), el);
  }

  window.addEventListener("keydown", onKey);
  load();
  return {
    render: paint,
    destroy() {
      gone = true;
      stop();
      window.removeEventListener("keydown", onKey);
      render(null, el);
    },
  };
}
