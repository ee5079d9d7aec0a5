// How well the bots play ("easy" | "normal" | "strong"): chosen for quick play and for
// filling a table, remembered per browser, shown at each bot's seat.
import { t, type Key } from "./i18n";

export type BotStrength = "easy" | "normal" | "strong";
export const STRENGTHS: BotStrength[] = ["easy", "normal", "strong"];
const KEY = "buraco.botStrength";

export function botStrength(): BotStrength {
  const saved = localStorage.getItem(KEY) as BotStrength | null;
  return saved && STRENGTHS.includes(saved) ? saved : "normal";
}

export function setBotStrength(s: string): void {
  if (STRENGTHS.includes(s as BotStrength)) localStorage.setItem(KEY, s);
}

export function strengthName(s: BotStrength): string {
  return t(`strength.${s}` as Key);
}
