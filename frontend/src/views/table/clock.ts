// The readable clock: seconds left on the seat on turn, then its time bank (the seconds
// every seat has for the whole hand once a turn's own run out), and the countdown of a
// seat whose player is away. From 10 s before the turn's last second (its own and its
// bank's) the clock pulses for everyone; on your own turn it also warns with a sound and
// a vibration where the device has one, then ticks each second. Written straight into
// the few elements it owns, four times a second, so the table is not rendered again for
// a clock; only what changed is written.
import { t } from "../../i18n";

export const WARN_AT = 10;

export interface ClockInput {
  root: HTMLElement;
  deadline: number | null;
  bank: number; // seconds of bank left after the deadline (0 while it is the bank's)
  banking: boolean; // the deadline is the bank's end
  cap: number; // while banking, the bank's whole length: the count never shows more
  now: number; // server time, seconds
  mine: boolean;
  onWarn: () => void; // once, as your time comes to its last 10 s
  onWarnTick: () => void; // each second after that
}

// Test hook: the vibrations asked for (a desktop browser has no motor to show them).
const vibrated: number[][] = ((window as any).__vibrateLog ??= []);

export function vibrate(pattern: number[]): void {
  vibrated.push(pattern);
  try {
    navigator.vibrate?.(pattern);
  } catch { /* not allowed before a tap in some browsers: the sound and the pulse say it */ }
}

/** The bank of the seat on turn as a snapshot shows it (clock records tell the rest):
 * the meta's banks of the hand in play, else the table's whole bank. */
export function bankFromMeta(meta: any, game: { hand_no: number; turn: number } | null): { bank: number; banking: boolean; cap: number } {
  const b = meta?.bank;
  const whole = Number(meta?.time_bank ?? 0);
  if (!b || !game || b.hand_no !== game.hand_no) return { bank: whole, banking: false, cap: Infinity };
  if (b.turn !== null && b.turn !== undefined) return { bank: 0, banking: true, cap: Number(b.until) - Number(b.since) };
  return { bank: Number(b.left?.[game.turn] ?? whole), banking: false, cap: Infinity };
}

let lastTick = -1;
let warnedFor: number | null = null; // the deadline already warned of

export function tickClock(c: ClockInput): void {
  c.root.querySelectorAll<HTMLElement>("[data-clock]").forEach((el) => {
    if (!c.deadline) {
      if (!el.hidden) el.hidden = true;
      return;
    }
    // The turn's own seconds, then the bank's (the server's bank record may come a
    // moment after the turn's deadline: the bank is counted from it either way).
    const own = c.banking ? 0 : c.deadline - c.now;
    const inBank = c.banking || own <= 0;
    const end = c.banking ? c.deadline : c.deadline + c.bank;
    // The estimate of the server's time may lag it by a few milliseconds: a bank of 9 s
    // just begun must not read 10.
    const left = Math.max(0, inBank ? Math.min(end - c.now, c.banking ? c.cap : Infinity) : own);
    const total = Math.max(0, end - c.now);
    const secs = Math.ceil(left);
    if (el.hidden) el.hidden = false;
    set(el, "textContent", String(secs));
    el.classList.toggle("warn", total <= WARN_AT);
    el.classList.toggle("banking", inBank);
    setData(el, inBank || c.bank <= 0 ? "" : `+${Math.ceil(c.bank)}`);
    set(el, "title", inBank ? t("table.bankLeft", { n: secs }) : c.bank > 0
      ? `${t("table.secondsLeft", { n: secs })} · ${t("table.bankLeft", { n: Math.ceil(c.bank) })}`
      : t("table.secondsLeft", { n: secs }));
    if (!c.mine || total > WARN_AT || total <= 0) return;
    const whole = Math.ceil(total);
    if (warnedFor !== end) {
      warnedFor = end;
      lastTick = whole;
      c.onWarn();
    } else if (whole !== lastTick) {
      lastTick = whole;
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

function setData(el: HTMLElement, bank: string): void {
  if ((el.dataset.bank ?? "") === bank) return;
  if (bank) el.dataset.bank = bank;
  else delete el.dataset.bank;
}

export function mmss(s: number): string {
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
