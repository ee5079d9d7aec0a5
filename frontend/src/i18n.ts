// Five languages, one flat dictionary each (src/i18n/*.json). Spanish is the default and
// the fallback, so it is the only dictionary in the first load; the others are separate
// chunks fetched (dynamic import) when chosen.
//
// Messages are ICU-style: "{n}" inserts a parameter (numbers written with
// Intl.NumberFormat in the chosen language) and "{n, plural, one {# carta} other {#
// cartas}}" picks a form with Intl.PluralRules ("=0 {...}" for an exact value; "#" is the
// number). A tiny formatter of our own (below) instead of a library: it is all we need.
import first from "virtual:es-first";
import type esWords from "./i18n/es.json";

export type Lang = "es" | "en" | "pt" | "it" | "pl";
export const LANGS: { code: Lang; name: string }[] = [
  { code: "es", name: "Español" },
  { code: "en", name: "English" },
  { code: "pt", name: "Português" },
  { code: "it", name: "Italiano" },
  { code: "pl", name: "Polski" },
];
type Dict = Record<string, string>;
export type Key = keyof typeof esWords;
// Spanish: the first load's words now, the rest when a screen that needs them loads
// (``laterWords``; vite.config.ts says which are which).
const es: Dict = { ...first };
let later: Promise<void> | null = null;

/** The Spanish words of the screens loaded on first use: awaited before such a screen
 * paints (main.ts, ``lazyView``). */
export function laterWords(): Promise<void> {
  later ??= import("virtual:es-later").then((m) => { Object.assign(es, m.default); });
  return later;
}

/** The BCP 47 locale each language formats numbers and dates with (pt is Brazilian). */
const LOCALE: Record<Lang, string> = { es: "es", en: "en", pt: "pt-BR", it: "it", pl: "pl" };
const LOADERS: Record<Exclude<Lang, "es">, () => Promise<{ default: Dict }>> = {
  en: () => import("./i18n/en.json"),
  pt: () => import("./i18n/pt.json"),
  it: () => import("./i18n/it.json"),
  pl: () => import("./i18n/pl.json"),
};
const DICTS: Partial<Record<Lang, Dict>> = { es };

// "qps" is a pseudo-language for tests: every string shows as ⟦key⟧, so a test can
// prove that every visible string went through t().
let current: Lang | "qps" = "es";
let wanted: Lang | "qps" = "es";
const listeners = new Set<() => void>();

function isLang(code: string | null): code is Lang {
  return !!code && LANGS.some((l) => l.code === code);
}

/** One of ours for a browser language tag: any Portuguese is pt (pt-BR), else the
 * primary subtag when we have it. */
export function ourLang(tag: string): Lang | null {
  const primary = tag.toLowerCase().split(/[-_]/)[0];
  return isLang(primary) ? primary : null;
}

/** The remembered choice, else the first of the browser's languages that we have, else
 * Spanish. */
export function pickInitial(): Lang {
  const saved = localStorage.getItem("buraco.lang");
  if (isLang(saved)) return saved;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const ours = ourLang(tag);
    if (ours) return ours;
  }
  return "es";
}

async function load(code: Lang): Promise<void> {
  if (DICTS[code] || code === "es") return;
  DICTS[code] = (await LOADERS[code]()).default;
}

/** Before the first render: the starting language's dictionary is in place. */
export async function initLang(): Promise<void> {
  const first = pickInitial();
  try {
    await load(first);
    current = wanted = first;
  } catch {
    current = wanted = "es";
  }
  document.documentElement.lang = LOCALE[lang()];
}

export function lang(): Lang {
  return current === "qps" ? "es" : current;
}

/** The language as the server names it (PUT /api/me/language). */
export function serverLang(): string {
  return lang() === "pt" ? "pt-BR" : lang();
}

export function locale(): string {
  return LOCALE[lang()];
}

export async function setLang(next: Lang | "qps"): Promise<void> {
  if (next !== "qps" && !isLang(next)) return;
  wanted = next;
  if (next !== "qps") await load(next);
  if (wanted !== next) return; // a later choice won the race
  current = next;
  if (next !== "qps") localStorage.setItem("buraco.lang", next);
  document.documentElement.lang = next === "qps" ? "es" : LOCALE[next];
  listeners.forEach((fn) => fn());
}

export function onLang(fn: () => void): void {
  listeners.add(fn);
}

type Params = Record<string, string | number>;

export function t(key: Key, params?: Params): string {
  if (current === "qps") return `⟦${key}⟧`;
  const text = DICTS[current]?.[key] ?? es[key] ?? key;
  return format(text, params);
}

/** A key built at run time (error codes, presets, item skus); falls back when absent. */
export function tk(key: string, fallback?: Key, params?: Params): string {
  if (key in es) return t(key as Key, params);
  return fallback ? t(fallback, params) : key;
}

export function has(key: string): boolean {
  return key in es;
}

// ---- formatting with the platform (Intl), cached per locale -------------------------

const cache = new Map<string, Map<string, unknown>>();
function memo<T>(id: string, make: () => T): T {
  const loc = locale();
  let mine = cache.get(loc);
  if (!mine) cache.set(loc, (mine = new Map()));
  let value = mine.get(id);
  if (value === undefined) mine.set(id, (value = make()));
  return value as T;
}

/** A number as the chosen language writes it (50.000, 50,000, 50 000), grouped from four
 * digits in every language: CLDR leaves Spanish and Polish 4-digit numbers ungrouped, and
 * "6000" beside "20.000" on one screen reads as a mistake (the server does the same). */
export function num(n: number): string {
  const options = { maximumFractionDigits: 0, useGrouping: "always" } as unknown as Intl.NumberFormatOptions;
  return memo("num", () => new Intl.NumberFormat(locale(), options)).format(n);
}

/** An amount in the site's head: whole under a million, above it as the language
 * shortens it ("1,2 M", "1.2M", "1,2 mln"), rounded down so it never shows more than
 * there is (a seven-digit wallet pushed the head onto two rows on a phone). */
export function headNum(n: number): string {
  if (Math.abs(n) < 1_000_000) return num(n);
  const options = { notation: "compact", maximumFractionDigits: 1, roundingMode: "trunc" } as unknown as Intl.NumberFormatOptions;
  return memo("headNum", () => new Intl.NumberFormat(locale(), options)).format(n);
}

/** A skill rating as the chosen language writes digits, ungrouped ("1840", as rating
 * scales are written everywhere; a quantity goes through ``num``). */
export function ratingNum(n: number): string {
  return memo("rating", () => new Intl.NumberFormat(locale(), { maximumFractionDigits: 0, useGrouping: false })).format(n);
}

/** Hours and minutes, 24-hour where the language uses it.*/
export function clockTime(d: Date): string {
  return memo("hm", () => new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit" })).format(d);
}

/** "hoy", "mañana", "jueves"…: the day of d said from today. */
export function dayWord(d: Date, now: Date = new Date()): string {
  const midnight = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((midnight(d) - midnight(now)) / 86_400_000);
  if (Math.abs(days) <= 1) {
    return memo("rel", () => new Intl.RelativeTimeFormat(locale(), { numeric: "auto" })).format(days, "day");
  }
  return memo("wd", () => new Intl.DateTimeFormat(locale(), { weekday: "long" })).format(d);
}

/** A date and time, short, in the chosen language. */
export function dateTime(d: Date): string {
  return memo("dt", () => new Intl.DateTimeFormat(locale(), { dateStyle: "short", timeStyle: "short" })).format(d);
}

// ---- the message formatter ----------------------------------------------------------

// A message is parsed once into parts (text, "#", or an argument with its plural forms,
// themselves parsed) and kept: the table formats the same few messages every frame.
type Part = string | { hash: true } | { name: string; raw: string; forms?: Record<string, Part[]> };
const compiled = new Map<string, Part[]>();

export function format(text: string, params?: Params): string {
  let parts = compiled.get(text);
  if (!parts) compiled.set(text, (parts = compile(text)));
  return render(parts, params, "#"); // a "#" outside a plural form is just that
}

/** Parts written out; "#" stands for `hash` (the plural's number, written). */
function render(parts: Part[], params: Params | undefined, hash: string): string {
  let out = "";
  for (const part of parts) {
    if (typeof part === "string") out += part;
    else if ("hash" in part) out += hash;
    else out += argument(part, params);
  }
  return out;
}

function compile(text: string): Part[] {
  const parts: Part[] = [];
  const literal = (chunk: string) => {
    chunk.split("#").forEach((piece, i) => {
      if (i > 0) parts.push({ hash: true });
      if (piece) parts.push(piece);
    });
  };
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{", i);
    const close = open < 0 ? -1 : matching(text, open);
    if (close < 0) {
      literal(text.slice(i));
      break;
    }
    literal(text.slice(i, open));
    const body = text.slice(open + 1, close);
    const m = /^\s*(\w+)\s*(?:,\s*plural\s*,([\s\S]*))?$/.exec(body);
    if (!m) parts.push(`{${body}}`);
    else if (m[2] === undefined) parts.push({ name: m[1], raw: body });
    else {
      const forms: Record<string, Part[]> = {};
      for (const [k, form] of Object.entries(branches(m[2]))) forms[k] = compile(form);
      parts.push({ name: m[1], raw: body, forms });
    }
    i = close + 1;
  }
  return parts;
}

/** The index of the brace closing the one at `open`, or -1. */
function matching(text: string, open: number): number {
  let depth = 0;
  for (let j = open; j < text.length; j++) {
    if (text[j] === "{") depth++;
    else if (text[j] === "}" && --depth === 0) return j;
  }
  return -1;
}

function show(value: string | number): string {
  return typeof value === "number" ? num(value) : guestName(value);
}

// A guest's stored nickname (app/users/schemas.py GUEST_NICKNAME_PREFIX + digits; a
// registered name may not look like it) is shown in the reader's language, also where it
// is a message's parameter ("Invitado1234 te desafió" → "Guest 1234 challenged you").
const GUEST = /^Invitado(\d{1,8})$/;

/** A name as shown: a guest's number in the reader's language, any other name as is. */
export function guestName(name: string): string {
  const m = GUEST.exec(name);
  return m ? t("profile.guestName", { no: m[1] }) : name;
}

function argument(part: { name: string; raw: string; forms?: Record<string, Part[]> }, params?: Params): string {
  const value = params?.[part.name];
  if (value === undefined) return `{${part.raw}}`;
  if (!part.forms) return show(value);
  const n = Number(value);
  const rule = memo("plural", () => new Intl.PluralRules(locale())).select(n);
  const form = part.forms[`=${n}`] ?? part.forms[rule] ?? part.forms.other ?? [];
  return render(form, params, num(n));
}

/** "one {…} few {…} other {…}" as {one: "…", few: "…", other: "…"}. */
function branches(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < spec.length) {
    const open = spec.indexOf("{", i);
    if (open < 0) break;
    const close = matching(spec, open);
    if (close < 0) break;
    out[spec.slice(i, open).trim()] = spec.slice(open + 1, close);
    i = close + 1;
  }
  return out;
}
