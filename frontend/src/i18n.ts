// Five languages, one flat dictionary each (src/i18n/*.json). Spanish is the default.
import es from "./i18n/es.json";
import en from "./i18n/en.json";
import pt from "./i18n/pt.json";
import it from "./i18n/it.json";
import pl from "./i18n/pl.json";

export type Lang = "es" | "en" | "pt" | "it" | "pl";
export const LANGS: { code: Lang; name: string }[] = [
  { code: "es", name: "Español" },
  { code: "en", name: "English" },
  { code: "pt", name: "Português" },
  { code: "it", name: "Italiano" },
  { code: "pl", name: "Polski" },
];
const DICTS: Record<Lang, Record<string, string>> = { es, en, pt, it, pl };
export type Key = keyof typeof es;

// "qps" is a pseudo-language for tests: every string shows as ⟦key⟧, so a test can
// prove that every visible string went through t().
let current: Lang | "qps" = pickInitial();
const listeners = new Set<() => void>();

function pickInitial(): Lang {
  const saved = localStorage.getItem("buraco.lang");
  if (saved && saved in DICTS) return saved as Lang;
  return "es";
}

export function lang(): Lang {
  return current === "qps" ? "es" : current;
}

export function setLang(next: Lang | "qps"): void {
  if (next !== "qps" && !(next in DICTS)) return;
  current = next;
  if (next !== "qps") localStorage.setItem("buraco.lang", next);
  document.documentElement.lang = next === "qps" ? "es" : next;
  listeners.forEach((fn) => fn());
}

export function onLang(fn: () => void): void {
  listeners.add(fn);
}

export function t(key: Key, params?: Record<string, string | number>): string {
  if (current === "qps") return `⟦${key}⟧`;
  let text = DICTS[current][key] ?? es[key] ?? key;
  if (params) {
    for (const [name, value] of Object.entries(params)) {
      text = text.split(`{${name}}`).join(String(value));
    }
  }
  return text;
}

/** A key built at run time (error codes, presets, item skus); falls back when absent. */
export function tk(key: string, fallback?: Key, params?: Record<string, string | number>): string {
  if (key in es) return t(key as Key, params);
  return fallback ? t(fallback, params) : key;
}

export function has(key: string): boolean {
  return key in es;
}
