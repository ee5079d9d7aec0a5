// The cut (docs/fairness.md): after the server commits to the shuffled deck, the player to
// the dealer's right taps the deck where to cut it. Everyone sees the deck's SHA-256
// commitment and the seconds left; the server cuts at random when they run out.
import { h, type VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { t } from "../../i18n";
import { socket } from "../../socket";

export type CutPrompt = {
  hand_no: number; seat: number; deadline: number | null; commitment: string;
  deck_size: number; min: number; max: number;
};

const SLIVERS = 36; // card edges drawn in the deck (only a picture of its thickness)

/** The cut position for a tap at ``frac`` (0 = the deck's left end, 1 = its right end). */
export function cutAt(p: CutPrompt, frac: number): number {
  const f = Math.min(1, Math.max(0, frac));
  return Math.round(p.min + f * (p.max - p.min));
}

function Countdown({ deadline }: { deadline: number | null }): VNode<any> | null {
  const [now, setNow] = useState(socket.serverNow());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(socket.serverNow()), 500);
    return () => window.clearInterval(timer);
  }, []);
  if (!deadline) return null;
  const left = Math.max(0, Math.floor(deadline - now));
  return h("span", { class: "cut-left", "aria-live": "off" }, t("table.secondsLeft", { n: left }));
}

function Deck({ p, tableId }: { p: CutPrompt; tableId: string }): VNode<any> {
  const [hover, setHover] = useState<number | null>(null);
  const [sent, setSent] = useState<number | null>(null);
  const frac = (e: MouseEvent) => {
    const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
    return (e.clientX - box.left) / Math.max(1, box.width);
  };
  const cut = (e: MouseEvent) => {
    if (sent !== null) return;
    // a click from the keyboard (detail 0) has no position: it cuts in the middle
    const position = e.detail === 0 ? cutAt(p, 0.5) : cutAt(p, frac(e));
    setSent(position);
    const cid = `${tableId}.cut${p.hand_no}.${Math.random().toString(36).slice(2, 7)}`;
    socket.send({ type: "cut", table: tableId, cid, position });
  };
  const shown = sent ?? hover;
  const marker = shown === null ? null : (shown - p.min) / Math.max(1, p.max - p.min);
  return h("div", { class: "cut-deck-wrap" },
    h("button", {
      type: "button", class: "cut-deck", id: "cut-deck", disabled: sent !== null,
      "aria-label": t("cut.deckLabel", { min: p.min, max: p.max }),
      onClick: cut,
      onPointerMove: (e: PointerEvent) => setHover(cutAt(p, frac(e))),
      onPointerLeave: () => setHover(null),
    },
      ...Array.from({ length: SLIVERS }, (_, i) => h("span", { key: i, class: "cut-sliver" })),
      marker === null ? null : h("span", { class: "cut-marker", style: { left: `${marker * 100}%` } })),
    h("p", { class: "cut-hint", id: "cut-hint" },
      sent !== null ? t("cut.sent", { n: sent }) : shown !== null ? t("cut.at", { n: shown }) : t("cut.tap")));
}

// The panel floats over the felt's foot, above a hand's score sheet: while it is on
// screen its height (and its gap) is kept in --cut-room on the root, which the sheet
// leaves free below itself (styles.css), so the sheet's foot, with its button to close
// it, is never under the panel.
let shown: HTMLElement | null = null;
const resizes = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => keepRoom());

function keepRoom(): void {
  const root = document.documentElement.style;
  if (shown?.isConnected) root.setProperty("--cut-room", `${shown.offsetHeight + 20}px`);
  else root.removeProperty("--cut-room");
}

function track(el: HTMLElement | null): void {
  if (el === shown) return;
  if (shown) resizes?.unobserve(shown);
  shown = el;
  if (el) resizes?.observe(el);
  keepRoom();
}

/** The cut panel while the table's meta carries a prompt, else null. */
export function cutView(
  prompt: CutPrompt | null | undefined, mySeat: number | null, tableId: string, seatName: (n: number) => string,
): VNode<any> | null {
  if (!prompt) return null;
  const mine = mySeat === prompt.seat;
  return h("section", { key: `cut${prompt.hand_no}`, class: "cut-panel", id: "cut-panel", role: "region", "aria-labelledby": "cut-title", ref: track },
    h("h2", { id: "cut-title" }, t("cut.title", { n: prompt.hand_no })),
    h("p", null, mine ? t("cut.yours") : t("cut.theirs", { name: seatName(prompt.seat) }), " ", h(Countdown, { deadline: prompt.deadline })),
    mine ? h(Deck, { p: prompt, tableId }) : null,
    h("p", { class: "cut-commit" }, t("cut.commitment"), " ",
      h("code", { id: "cut-commitment", title: prompt.commitment }, `${prompt.commitment.slice(0, 16)}…`)));
}
