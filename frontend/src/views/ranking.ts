// The ranking: by XP (all time or this week, overall or by modality) or by skill rating
// (per family of variants and format, settled ratings only).
import { get, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { locale, ratingNum, t, tk } from "../i18n";
import { PRESET_NAMES } from "../presets";
import { app } from "../state";
import { spinner } from "../ui";
import { presetName } from "../presets";
import type { View } from "../view";

const FAMILIES = ["abierto", "cerrado", "burako", "brasil"];
const FORMATS = ["2p", "pairs", "multi"];

export function rankingView(el: HTMLElement): View {
  let by: "xp" | "rating" = "xp";
  let period = "all";
  let modality = "";
  let family = "abierto";
  let format = "2p";
  let minGames = 10;
  let rows: any[] | null = null;
  let since: string | null = null;
  let error = "";
  let asked = 0; // the latest request: an earlier answer arriving after it is dropped

  async function load(): Promise<void> {
    const mine = ++asked;
    rows = null;
    error = "";
    render();
    try {
      if (by === "rating") {
        const data = await get(`/api/ratings/leaderboard?family=${family}&format=${format}`);
        if (mine !== asked) return;
        rows = data.rows;
        minGames = data.min_games;
      } else {
        const data = await get(`/api/leaderboards?period=${period}${modality ? `&modality=${modality}` : ""}`);
        if (mine !== asked) return;
        rows = data.rows;
        since = data.since;
      }
    } catch (e) {
      if (mine !== asked) return;
      error = errorText(e);
      rows = [];
    }
    render();
  }

  /** What the list ranks, said in full: who is in it, by what, since when, which games. */
  function about(): HTMLElement {
    if (by === "rating") return h("p", { class: "about", id: "rk-about" }, t("rating.about", { n: minGames }));
    const lines = [t("ranking.about")];
    if (period === "week" && since) {
      // The week starts on Monday 00:00 UTC: the date is said in UTC, not local time.
      const date = new Intl.DateTimeFormat(locale(), { day: "numeric", month: "long", timeZone: "UTC" }).format(new Date(since));
      lines.push(t("ranking.sinceWeek", { date }));
    }
    if (modality) lines.push(t("ranking.modalityOnly", { name: presetName(modality) }));
    return h("p", { class: "about", id: "rk-about" }, lines.join(" "));
  }

  function pick(id: string, label: string, value: string, options: [string, string][], set: (v: string) => void): HTMLElement {
    return h("label", { class: "filter" }, h("span", null, label),
      h("select", { id, onchange: (e: Event) => { set((e.target as HTMLSelectElement).value); load(); } },
        ...options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))));
  }

  function filters(): HTMLElement {
    const kind = pick("rk-by", t("rating.rankBy"), by, [["xp", t("ranking.xp")], ["rating", t("rating.title")]], (v) => { by = v as "xp" | "rating"; });
    if (by === "rating") {
      return h("div", { class: "filters" }, kind,
        pick("rk-family", t("rating.family"), family, FAMILIES.map((f) => [f, tk(`rating.family.${f}`)]), (v) => { family = v; }),
        pick("rk-format", t("rating.format"), format, FORMATS.map((f) => [f, tk(`rating.format.${f}`)]), (v) => { format = v; }));
    }
    return h("div", { class: "filters" }, kind,
      pick("rk-period", t("ranking.period"), period, [["all", t("ranking.all")], ["week", t("ranking.week")]], (v) => { period = v; }),
      pick("rk-mod", t("lobby.modality"), modality, [["", t("lobby.all")], ...PRESET_NAMES.map((p): [string, string] => [p, presetName(p)])], (v) => { modality = v; }));
  }

  function table(list: any[]): HTMLElement {
    const rating = by === "rating";
    return h("table", { class: "grid-table rank" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("ranking.player")),
        h("th", { scope: "col" }, rating ? t("profile.games") : t("ranking.level")), h("th", { scope: "col" }, rating ? t("rating.title") : t("ranking.xp")))),
      h("tbody", null, ...list.map((r) => h("tr", { class: r.user_id === app.me?.id ? "me" : null },
        h("td", { "data-raw": "" }, fmt(r.rank)),
        h("td", null, h("a", { href: `#/profile/${r.user_id}` }, raw(r.nickname))),
        h("td", { "data-raw": "" }, fmt(rating ? r.games : r.level)),
        rating ? h("td", { "data-raw": "", "data-rating": "" }, ratingNum(r.rating)) : h("td", { "data-raw": "" }, fmt(r.xp))))));
  }

  function render(): void {
    mount(el, h("section", { class: "page ranking" },
      h("h1", null, t("ranking.title")),
      about(),
      filters(),
      h("section", { class: "panel" },
        rows === null ? spinner() : error ? h("p", { class: "error" }, error) : rows.length ? table(rows) :
          h("p", { class: "empty" }, t(by === "rating" ? "rating.empty" : "ranking.empty")))));
  }

  load();
  return { render };
}
