// The ranking: all time or this week, overall or by modality.
import { get, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { locale, t } from "../i18n";
import { PRESET_NAMES } from "../presets";
import { app } from "../state";
import { spinner } from "../ui";
import { presetName } from "./createTable";
import type { View } from "../view";

export function rankingView(el: HTMLElement): View {
  let period = "all";
  let modality = "";
  let rows: any[] | null = null;
  let since: string | null = null;
  let error = "";

  async function load(): Promise<void> {
    rows = null;
    render();
    try {
      const data = await get(`/api/leaderboards?period=${period}${modality ? `&modality=${modality}` : ""}`);
      rows = data.rows;
      since = data.since;
    } catch (e) {
      error = errorText(e);
      rows = [];
    }
    render();
  }

  /** What the list ranks, said in full: who is in it, by what, since when, which games. */
  function about(): HTMLElement {
    const lines = [t("ranking.about")];
    if (period === "week" && since) {
      // The week starts on Monday 00:00 UTC: the date is said in UTC, not local time.
      const date = new Intl.DateTimeFormat(locale(), { day: "numeric", month: "long", timeZone: "UTC" }).format(new Date(since));
      lines.push(t("ranking.sinceWeek", { date }));
    }
    if (modality) lines.push(t("ranking.modalityOnly", { name: presetName(modality) }));
    return h("p", { class: "about", id: "rk-about" }, lines.join(" "));
  }

  function render(): void {
    mount(el, h("section", { class: "page ranking" },
      h("h1", null, t("ranking.title")),
      about(),
      h("div", { class: "filters" },
        h("label", { class: "filter" }, h("span", null, t("ranking.period")),
          h("select", { id: "rk-period", onchange: (e: Event) => { period = (e.target as HTMLSelectElement).value; load(); } },
            h("option", { value: "all", selected: period === "all" }, t("ranking.all")),
            h("option", { value: "week", selected: period === "week" }, t("ranking.week")))),
        h("label", { class: "filter" }, h("span", null, t("lobby.modality")),
          h("select", { id: "rk-mod", onchange: (e: Event) => { modality = (e.target as HTMLSelectElement).value; load(); } },
            h("option", { value: "" }, t("lobby.all")),
            ...PRESET_NAMES.map((p) => h("option", { value: p, selected: p === modality }, presetName(p)))))),
      h("section", { class: "panel" },
        rows === null ? spinner() : error ? h("p", { class: "error" }, error) : rows.length ?
          h("table", { class: "grid-table rank" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("ranking.player")), h("th", { scope: "col" }, t("ranking.level")), h("th", { scope: "col" }, t("ranking.xp")))),
            h("tbody", null, ...rows.map((r) => h("tr", { class: r.user_id === app.me?.id ? "me" : null },
              h("td", { "data-raw": "" }, fmt(r.rank)),
              h("td", null, h("a", { href: `#/profile/${r.user_id}` }, raw(r.nickname))),
              h("td", { "data-raw": "" }, fmt(r.level)),
              h("td", { "data-raw": "" }, fmt(r.xp)))))) :
          h("p", { class: "empty" }, t("ranking.empty")))));
  }

  load();
  return { render };
}
