// The readable clock: seconds left on the seat on turn (a warning colour and a tick each
// second from 10 s down when it is your turn), and the countdown of a seat whose player
// is away. Written straight into the few elements it owns, four times a second, so the
// table is not rendered again for a clock; only what changed is written.
import { t } from "../../i18n";

export const WARN_AT = 10;

export interface ClockInput {
  root: HTMLElement;
  deadline: number | null;
  now: number; // server time, seconds
  mine: boolean;
  onWarnTick: () => void;
}

let lastTick = -1;

export function tickClock(c: ClockInput): void {
  c.root.querySelectorAll<HTMLElement>("[data-clock]").forEach((el) => {
    if (!c.deadline) {
      if (!el.hidden) el.hidden = true;
      return;
    }
    const left = Math.max(0, c.deadline - c.now);
    const secs = Math.ceil(left);
    if (el.hidden) el.hidden = false;
    set(el, "textContent", String(secs));
    el.classList.toggle("warn", left <= WARN_AT);
    set(el, "title", t("table.secondsLeft", { n: secs }));
    if (c.mine && left <= WARN_AT && secs > 0 && secs !== lastTick) {
      lastTick = secs;
      c.onWarnTick();
    }
  });
  c.root.querySelectorAll<HTMLElement>("[data-away]").forEach((el) => {
    const until = Number(el.dataset.away);
    const left = Math.max(0, Math.ceil(until - c.now));
    set(el, "textContent", t("table.awayFor", { s: mmss(left) }));
  });
}

/** Writes only what changed: writing the same text again still costs a layout. */
function set(el: HTMLElement, key: "textContent" | "title", value: string): void {
  if (el[key] !== value) el[key] = value;
}

export function mmss(s: number): string {
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
