// Motion with the Web Animations API. Every card, seat and meld keeps its element from one
// render to the next (Preact's keyed diff), so a move is shown by measuring where things
// were before a render and where they are after it (FLIP), or by flying a stand-in card
// from one place to another. Animations never hold up input or a server message: the
// next render finishes whatever is still running first. Each animation's id says what it
// is ("fly", "glide", "canasta", "canasta-banner", "pulse", "appear"): the browser tests
// read them.
import { domCard } from "./vcards";

export type Speed = "off" | "normal" | "fast";
const KEY = "buraco.motion";
const running = new Set<Animation>();
const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)");
let layer: HTMLElement | null = null;

export function speed(): Speed {
  const saved = localStorage.getItem(KEY) as Speed | null;
  return saved === "off" || saved === "fast" ? saved : "normal";
}

export function setSpeed(s: Speed): void {
  localStorage.setItem(KEY, s);
}

/** Motion runs unless the player or the system asked for none. */
export function enabled(): boolean {
  return speed() !== "off" && !reduced?.matches;
}

function ms(base: number): number {
  return speed() === "fast" ? base * 0.5 : base;
}

/** End every running animation at its last frame (a new frame arrived). */
export function finishAll(): void {
  jobs.length = 0;
  for (const a of running) a.finish();
  running.clear();
  layer?.replaceChildren();
}

/** How many animations are planned and not yet started (the tests' move log counts them
 * per move). */
export function planned(): number {
  return jobs.length;
}

function track(a: Animation, done?: () => void): void {
  running.add(a);
  a.onfinish = a.oncancel = () => {
    running.delete(a);
    done?.();
  };
}

export type Rects = Map<string, DOMRect>;

/** Where every anchor ([data-fx]) and every hand card ([data-key]) is now. */
export function measure(root: HTMLElement): Rects {
  const out: Rects = new Map();
  root.querySelectorAll<HTMLElement>("[data-fx]").forEach((el) => out.set(el.dataset.fx!, el.getBoundingClientRect()));
  root.querySelectorAll<HTMLElement>("#hand [data-key]").forEach((el) => out.set(`card:${el.dataset.key}`, el.getBoundingClientRect()));
  return out;
}

function fxLayer(): HTMLElement {
  if (!layer || !layer.isConnected) {
    layer = document.createElement("div");
    layer.className = "fx-layer";
    layer.setAttribute("aria-hidden", "true");
    document.body.appendChild(layer);
  }
  return layer;
}

const center = (r: DOMRect) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });

// Animations are planned first (every box read while the layout is clean) and started
// together by flush(): reading a box after an animation started would force a style
// recalculation per card.
const jobs: (() => void)[] = [];

/** Start every planned animation. */
export function flush(): void {
  jobs.splice(0).forEach((job) => job());
}

const SIZES = { normal: [46, 66], small: [30, 44] };

/** A stand-in card (face up when known) flies from one box to another. */
export function fly(from: DOMRect, to: DOMRect, card: string | null, delay = 0, small = false): void {
  const [w, h] = SIZES[small ? "small" : "normal"];
  const a = center(from);
  const b = center(to);
  jobs.push(() => {
    const node = domCard(card, `flying ${small ? "small" : ""}`);
    node.style.left = `${a.x - w / 2}px`;
    node.style.top = `${a.y - h / 2}px`;
    fxLayer().appendChild(node);
    const anim = node.animate([
      { transform: "translate(0, 0) rotate(-6deg) scale(0.9)", opacity: 0.95 },
      { transform: `translate(${b.x - a.x}px, ${b.y - a.y}px) rotate(0) scale(1)`, opacity: 1 },
    ], { id: "fly", duration: ms(420), delay: ms(delay), easing: "cubic-bezier(.2,.7,.2,1)", fill: "backwards" });
    track(anim, () => node.remove());
  });
}

/** FLIP: an element drawn at its new place glides there from an old box. */
export function glide(el: Element, from: DOMRect, delay = 0, scale = false): void {
  const to = el.getBoundingClientRect();
  const a = center(from);
  const b = center(to);
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  const s = scale && to.width ? Math.max(0.3, Math.min(1.6, from.width / to.width)) : 1;
  jobs.push(() => track(el.animate([
    { transform: `translate(${dx}px, ${dy}px) scale(${s})` },
    { transform: "none" },
  ], { id: "glide", duration: ms(380), delay: ms(delay), easing: "cubic-bezier(.2,.7,.2,1)", fill: "backwards" })));
}

/** A clear moment: the element swells and glows (a canasta, your turn). */
export function pulse(el: Element, strong = false, delay = 0): void {
  jobs.push(() => pulseNow(el, strong, delay));
}

function pulseNow(el: Element, strong: boolean, delay: number): void {
  const glow = strong ? "0 0 0 4px #ffd35a, 0 0 34px 10px rgba(255, 211, 90, 0.9)" : "0 0 0 3px #7fd3ff, 0 0 18px rgba(127, 211, 255, .9)";
  // A meld swells to the right of its left edge: its zone scrolls, so it would clip a
  // swell past its left side.
  const origin = strong ? "left center" : "center";
  const anim = el.animate([
    { transform: "scale(1)", boxShadow: "none", transformOrigin: origin },
    { transform: `scale(${strong ? 1.08 : 1.06})`, boxShadow: glow, offset: 0.4, transformOrigin: origin },
    { transform: "scale(1)", boxShadow: "none", transformOrigin: origin },
  ], { id: strong ? "canasta" : "pulse", duration: ms(strong ? 900 : 500), delay: ms(delay), easing: "ease-out" });
  track(anim);
}

/** A word rises over a box and fades (the canasta's "¡Canasta!"), in the flight layer so
 * that no scrolling zone clips it. */
export function banner(over: DOMRect, text: string, delay = 0): void {
  const at = center(over);
  jobs.push(() => {
    const node = document.createElement("div");
    node.className = "fx-banner";
    node.textContent = text;
    node.style.left = `${at.x}px`;
    node.style.top = `${at.y}px`;
    fxLayer().appendChild(node);
    const anim = node.animate([
      { opacity: 0, transform: "translate(-50%, -50%) scale(0.5)" },
      { opacity: 1, transform: "translate(-50%, -70%) scale(1.15)", offset: 0.25 },
      { opacity: 1, transform: "translate(-50%, -80%) scale(1)", offset: 0.75 },
      { opacity: 0, transform: "translate(-50%, -130%) scale(1)" },
    ], { id: "canasta-banner", duration: ms(1300), delay: ms(delay), easing: "ease-out", fill: "backwards" });
    track(anim, () => node.remove());
  });
}

/** Something appears where it was not (a new meld with no known origin). */
export function appear(el: Element): void {
  jobs.push(() => track(el.animate([{ opacity: 0, transform: "scale(0.6)" }, { opacity: 1, transform: "none" }],
    { id: "appear", duration: ms(300), easing: "ease-out" })));
}
