// Tournaments: the list (upcoming, running, finished), a Sit & Go opened by the player,
// and one tournament's page: registration, the bracket (knockout) or the standings
// (Swiss), its rounds and prizes, kept live by the "tournament" frames of the socket.
import { get, post, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { dateTime, t, tk } from "../i18n";
import { socket } from "../socket";
import { app } from "../state";
import { spinner, toast, coinIcon } from "../ui";
import { presetName } from "./createTable";
import type { View } from "../view";

type Tab = "upcoming" | "running" | "finished";
const TABS: Tab[] = ["upcoming", "running", "finished"];

function sideNames(side: any): HTMLElement {
  if (!side) return h("span", { class: "bye" }, t("tour.bye"));
  const names: string[] = side.names ?? [];
  return raw(names.join(" · ") || "?", "span", "side-names");
}

function stateLabel(s: string): string {
  return tk(`tour.state.${s}`, "tour.state.registering");
}

function facts(x: any): HTMLElement {
  return h("ul", { class: "tour-facts" },
    h("li", null, t(x.format === "swiss" ? "tour.swiss" : "tour.knockout"),
      x.format === "swiss" ? ` · ${t("tour.rounds", { n: x.rounds })}` : ""),
    h("li", null, `${presetName(x.preset)} · ${t(x.players === 4 ? "tour.pairs" : "tour.oneVsOne")}`),
    h("li", null, t("tour.hands", { n: x.hands })),
    h("li", { "data-raw": "" }, `${x.entrants}/${x.max_entrants}`, " ", h("span", null, t("tour.entrants"))),
    h("li", null, x.buy_in ? h("span", null, coinIcon(), " ", fmt(x.buy_in)) : t("tour.free")),
    x.pool ? h("li", null, t("tour.pool"), " ", coinIcon(), " ", fmt(x.pool)) : null,
    x.starts_at ? h("li", null, t("tour.startsAt", { when: dateTime(new Date(x.starts_at)) })) : null,
    x.duplicate ? h("li", null, t("tour.duplicate")) : null);
}

async function act(id: number, what: "register" | "unregister", after: () => void): Promise<void> {
  try {
    await post(`/api/tournaments/${id}/${what}`);
    toast(t(what === "register" ? "tour.registered" : "tour.unregistered"), "ok");
  } catch (e) {
    toast(errorText(e), "error");
  }
  after();
}

function joinButton(x: any, after: () => void): HTMLElement | null {
  if (x.registered && x.state === "registering") {
    return h("button", { type: "button", class: "btn", "data-act": "unregister", onclick: () => act(x.id, "unregister", after) }, t("tour.unregister"));
  }
  if (!x.registered && x.registration_open) {
    return h("button", { type: "button", class: "btn primary", "data-act": "register", onclick: () => act(x.id, "register", after) },
      x.buy_in ? t("tour.registerFor", { coins: fmt(x.buy_in) }) : t("tour.register"));
  }
  return x.registered ? h("span", { class: "tag" }, t("tour.youAreIn")) : null;
}

export function tournamentsView(el: HTMLElement, arg: string): View {
  const id = Number(arg) || 0;
  return id ? detailView(el, id) : listView(el);
}

function listView(el: HTMLElement): View {
  let tab: Tab = (sessionStorage.getItem("buraco:tournaments-tab") as Tab) || "upcoming";
  let rows: any[] | null = null;
  let error = "";
  const form = { entrants: 8, format: "knockout", buy_in: 0, allow_bots: true, turbo: false, bot_fill_seconds: 30 };

  async function load(): Promise<void> {
    try {
      rows = await get(`/api/tournaments?status=${tab}`);
      error = "";
    } catch (e) {
      error = errorText(e);
      rows = [];
    }
    render();
  }

  async function create(ev: Event): Promise<void> {
    ev.preventDefault();
    try {
      const made = await post("/api/tournaments", { ...form, name: t("tour.sitgoName") });
      location.hash = `#/tournaments/${made.id}`;
    } catch (e) {
      toast(errorText(e), "error");
    }
  }

  function sitgoForm(): HTMLElement {
    const select = (name: keyof typeof form, options: [string | number, string][]) =>
      h("select", { id: `tg-${name}`, onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        (form as any)[name] = typeof form[name] === "number" ? Number(v) : v;
      } }, ...options.map(([v, label]) => h("option", { value: String(v), selected: form[name] === v }, label)));
    const check = (name: "allow_bots" | "turbo", label: string) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", id: `tg-${name}`, checked: form[name],
        onchange: (e: Event) => { form[name] = (e.target as HTMLInputElement).checked; } }), " ", label);
    return h("details", { class: "panel tour-create" },
      h("summary", null, t("tour.createSitgo")),
      h("form", { onsubmit: create },
        h("p", { class: "muted" }, t("tour.sitgoLead")),
        h("label", { class: "filter" }, h("span", null, t("tour.entrants")), select("entrants", [[4, "4"], [8, "8"], [16, "16"]])),
        h("label", { class: "filter" }, h("span", null, t("tour.format")),
          select("format", [["knockout", t("tour.knockout")], ["swiss", t("tour.swiss")]])),
        h("label", { class: "filter" }, h("span", null, t("tour.buyIn")),
          select("buy_in", [[0, t("tour.free")], [1000, fmt(1000)], [6000, fmt(6000)], [20000, fmt(20000)]])),
        check("allow_bots", t("tour.allowBots", { s: form.bot_fill_seconds })),
        check("turbo", t("tour.turbo")),
        h("button", { type: "submit", class: "btn primary", id: "tg-create" }, t("tour.create"))));
  }

  function card(x: any): HTMLElement {
    return h("article", { class: "panel tour-card", "data-id": String(x.id) },
      h("header", null,
        h("h3", null, h("a", { href: `#/tournaments/${x.id}` }, raw(x.name))),
        h("span", { class: `tag state-${x.state}` }, stateLabel(x.state))),
      facts(x),
      h("div", { class: "actions" },
        joinButton(x, load),
        h("a", { class: "btn", href: `#/tournaments/${x.id}` }, t("tour.open"))));
  }

  function render(): void {
    mount(el, h("section", { class: "page tournaments" },
      h("h1", null, t("tour.title")),
      h("div", { class: "tabs", role: "tablist" }, ...TABS.map((name) =>
        h("button", { type: "button", role: "tab", "aria-selected": String(tab === name), class: tab === name ? "tab active" : "tab",
          "data-tab": name, onclick: () => { tab = name; sessionStorage.setItem("buraco:tournaments-tab", name); rows = null; render(); load(); } },
          t(`tour.tab.${name}` as any)))),
      tab === "upcoming" ? sitgoForm() : null,
      rows === null ? spinner() : error ? h("p", { class: "error" }, error) : rows.length ?
        h("div", { class: "tour-list" }, ...rows.map(card)) :
        h("p", { class: "empty" }, t(`tour.empty.${tab}` as any))));
  }

  const off = socket.on("tournament", () => load());
  socket.setLobby(true);
  render();
  load();
  return { render, destroy: () => { off(); socket.setLobby(false); } };
}

function detailView(el: HTMLElement, id: number): View {
  let x: any = null;
  let error = "";
  let version = -1;

  async function load(): Promise<void> {
    try {
      x = await get(`/api/tournaments/${id}`);
      error = "";
    } catch (e) {
      error = errorText(e);
    }
    render();
  }

  function standings(): HTMLElement {
    return h("div", { class: "tour-table" }, h("table", { class: "grid-table tour-standings" },
      h("thead", null, h("tr", null,
        h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("tour.player")),
        h("th", { scope: "col" }, t("tour.vp")), h("th", { scope: "col" }, t("tour.oppVp")),
        h("th", { scope: "col" }, t("tour.mpDiff")))),
      h("tbody", null, ...x.standings.map((s: any) => h("tr", { class: s.user_ids?.includes(app.me?.id) ? "me" : null },
        h("td", { "data-raw": "" }, String(s.place)),
        h("td", null, sideNames(s)),
        h("td", { "data-raw": "" }, String(s.vp)),
        h("td", { "data-raw": "" }, String(s.opponents_vp)),
        h("td", { "data-raw": "" }, (s.mp_diff > 0 ? "+" : "") + fmt(s.mp_diff)))))));
  }

  function matchBox(m: any): HTMLElement {
    const mine = [...(m.a?.user_ids ?? []), ...(m.b?.user_ids ?? [])].includes(app.me?.id);
    const line = (side: any, i: number) => h("div", {
      class: `tour-side${m.state === "done" && side && m.winner === side.side ? " won" : ""}`,
    }, sideNames(side), m.state === "done" && side ? h("span", { class: "mp", "data-raw": "" },
      x.format === "swiss" ? `${m.mp[i]} · ${m.vp[i]} ${t("tour.vpShort")}` : String(m.mp[i])) : null);
    return h("div", { class: `tour-match state-${m.state}${mine ? " mine" : ""}` },
      line(m.a, 0), line(m.b, 1),
      m.state === "playing" && m.table_id ? h("a", { class: "btn small", href: `#/table/${m.table_id}` },
        t(mine ? "tour.play" : "tour.watch")) : null,
      x.duplicate && m.deals?.length ? h("div", { class: "deals", "data-raw": "" },
        m.deals.map((d: number[], k: number) => `${k + 1}: ${d[0]}–${d[1]}`).join(" · ")) : null);
  }

  function rounds(): HTMLElement {
    const cls = x.format === "knockout" ? "tour-bracket" : "tour-rounds";
    return h("div", { class: cls }, ...x.rounds_list.map((r: any) =>
      h("section", { class: "tour-round" },
        h("h3", null, t("tour.round", { n: r.round_no })),
        ...r.matches.map(matchBox))));
  }

  function render(): void {
    if (!x) {
      mount(el, h("section", { class: "page tournament" }, error ? h("p", { class: "error" }, error) : spinner()));
      return;
    }
    version = x.version ?? version;
    mount(el, h("section", { class: "page tournament" },
      h("p", null, h("a", { href: "#/tournaments" }, "← ", t("tour.title"))),
      h("h1", null, raw(x.name)),
      h("div", { class: "tour-head" },
        h("span", { class: `tag state-${x.state}` }, stateLabel(x.state)),
        x.current_round ? h("span", null, t("tour.roundOf", { n: x.current_round, of: x.rounds })) : null,
        joinButton(x, load)),
      facts(x),
      x.prizes?.length ? h("p", { class: "tour-prizes" }, t("tour.prizes"), " ",
        x.prizes.map((p: number, i: number) => `${t("tour.place", { n: i + 1 })} ${fmt(p)}`).join(" · ")) : null,
      x.standings.length && x.format === "swiss" ? h("section", { class: "panel" }, h("h2", null, t("tour.standings")), standings()) : null,
      x.rounds_list.length ? h("section", { class: "panel" },
        h("h2", null, t(x.format === "knockout" ? "tour.bracket" : "tour.roundsTitle")), rounds()) :
        h("p", { class: "empty" }, t(x.state === "cancelled" ? "tour.cancelledText" : "tour.waiting")),
      x.standings.length && x.format === "knockout" ? h("section", { class: "panel" }, h("h2", null, t("tour.standings")), standings()) : null));
  }

  const off = socket.on("tournament", (f) => { if (f.id === id && f.version !== version) load(); });
  socket.setLobby(true);
  render();
  load();
  return { render, destroy: () => { off(); socket.setLobby(false); } };
}
