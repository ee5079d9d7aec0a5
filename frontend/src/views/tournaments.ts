// Tournaments: the list (upcoming, running, finished), a card per tournament with its
// registration, the "Crear Sit & Go" sheet, and the profile's results. The detail (bracket,
// standings, matches) is views/tournament.ts. Live: the `tournament` message (docs/tournaments.md).
import "./tournaments.css";
import { get, post, errorText } from "../api";
import { h, mount, raw, fmt } from "../dom";
import { dateTime, t } from "../i18n";
import { PRESET_NAMES } from "../presets";
import { socket } from "../socket";
import { refreshWallet } from "../state";
import { checkbox, coinIcon, dialog, field, spinner } from "../ui";
import { presetName } from "../presets";
import type { View } from "../view";

export type Tab = "upcoming" | "running" | "finished";
const TABS: Tab[] = ["upcoming", "running", "finished"];
const TAB_KEYS = { upcoming: "tn.upcoming", running: "tn.running", finished: "tn.finished" } as const;
const EMPTY_KEYS = { upcoming: "tn.emptyUpcoming", running: "tn.emptyRunning", finished: "tn.emptyFinished" } as const;
const STATE_KEYS = {
  registering: "tn.stateRegistering", running: "tn.stateRunning", paying: "tn.statePaying",
  finished: "tn.stateFinished", cancelled: "tn.stateCancelled", cancelling: "tn.stateCancelled",
} as const;

/** "Eliminatoria", "Suizo". */
export function formatName(f: string): string {
  return t(f === "swiss" ? "tn.swiss" : "tn.knockout");
}

export function stateName(s: string): string {
  return t(STATE_KEYS[s as keyof typeof STATE_KEYS] ?? "tn.stateRunning");
}

/** The little labels of a tournament: format, 1 v 1 or pairs, Sit & Go, duplicate, turbo. */
export function tags(tn: any): HTMLElement {
  return h("div", { class: "tn-tags" },
    h("span", { class: "tag" }, formatName(tn.format)),
    h("span", { class: "tag" }, t(tn.players === 4 ? "tn.pairs" : "tn.oneVsOne")),
    h("span", { class: "tag" }, t(tn.kind === "sitgo" ? "tn.sitgo" : "tn.scheduled")),
    tn.duplicate ? h("span", { class: "tag dup" }, t("tn.duplicate")) : null,
    tn.turbo ? h("span", { class: "tag turbo" }, t("lobby.turbo")) : null);
}

export function coins(n: number): HTMLElement {
  return h("span", { class: "tn-coins" }, coinIcon(), h("span", { "data-raw": "" }, fmt(n)));
}

/** When: the start (a date through Intl), "al completarse", the round, or the end. */
export function when(tn: any): string {
  if (tn.state === "registering") {
    return tn.starts_at ? dateTime(new Date(tn.starts_at)) : t("tn.whenFull");
  }
  if (tn.state === "running" || tn.state === "paying") return t("tn.roundOf", { n: tn.current_round, of: tn.rounds });
  return tn.finished_at ? dateTime(new Date(tn.finished_at)) : stateName(tn.state);
}

/** People a tournament seats: a side is a pair at 4 players. */
export function capacity(tn: any): number {
  return tn.max_entrants * (tn.players === 4 ? 2 : 1);
}

/** The key figures of a tournament, as a definition list. */
export function figures(tn: any): HTMLElement {
  const item = (label: string, value: HTMLElement | string, cls: string) =>
    h("div", { class: `tn-fig ${cls}` }, h("dt", null, label), h("dd", null, value));
  const seats = h("span", { "data-raw": "" }, `${fmt(tn.entrants)}/${fmt(capacity(tn))}`);
  return h("dl", { class: "tn-figs" },
    item(t("tn.entrants"), seats, "f-entrants"),
    item(t("tn.buyIn"), tn.buy_in ? coins(tn.buy_in) : t("tn.free"), "f-buyin"),
    item(t("tn.pool"), tn.pool ? coins(tn.pool) : "–", "f-pool"),
    item(t(tn.state === "registering" ? "tn.starts" : tn.state === "finished" ? "tn.ended" : "tn.status"), when(tn), "f-when"));
}

/** Register / unregister, with its state said plainly and its error shown beside it. */
// The last refusal per tournament: kept across live repaints, gone with the next tap.
const refusals = new Map<number, unknown>();

export function registration(tn: any, onDone: (updated: any) => void): HTMLElement {
  const refused = refusals.get(tn.id);
  const error = h("p", { class: "error tn-error", role: "alert" }, refused ? errorText(refused) : "");
  const act = (path: string) => async (e: Event) => {
    const btn = e.currentTarget as HTMLButtonElement;
    if (btn.disabled) return;
    btn.disabled = true;
    error.textContent = "";
    refusals.delete(tn.id);
    try {
      const updated = await post(`/api/tournaments/${tn.id}/${path}`);
      await refreshWallet();
      onDone(updated);
    } catch (err) {
      refusals.set(tn.id, err); // said again in the language of each repaint
      error.textContent = errorText(err);
      btn.disabled = false;
    }
  };
  let control: HTMLElement;
  if (tn.registered && tn.state === "registering") {
    control = h("div", { class: "row wrap" },
      h("span", { class: "tag ok tn-in" }, "✓ ", t("tn.registered")),
      h("button", { type: "button", class: "btn small danger tn-unregister", onclick: act("unregister") }, t("tn.unregister")));
  } else if (tn.registered && (tn.state === "running" || tn.state === "paying")) {
    control = h("span", { class: "tag ok tn-in" }, "✓ ", t("tn.playing"));
  } else if (tn.registration_open && tn.entrants < capacity(tn)) {
    control = h("button", { type: "button", class: "btn small primary tn-register", onclick: act("register") },
      t("tn.register"), tn.buy_in ? [" · ", coins(tn.buy_in)] : null);
  } else if (tn.state === "registering") {
    control = h("span", { class: "tag warn" }, t(tn.registration_open ? "tn.full" : "tn.closed"));
  } else {
    control = h("span", { class: "tag" }, stateName(tn.state));
  }
  return h("div", { class: "tn-reg" }, control, error);
}

function card(tn: any, onChanged: () => void): HTMLElement {
  return h("article", { class: `tn-card${tn.registered ? " mine" : ""}`, "data-tid": String(tn.id) },
    h("header", { class: "tn-card-head" },
      h("h2", null, h("a", { href: `#/tournament/${tn.id}`, class: "tn-open" }, raw(tn.name))),
      tags(tn)),
    figures(tn),
    h("footer", { class: "tn-card-foot" },
      registration(tn, onChanged),
      h("a", { href: `#/tournament/${tn.id}`, class: "btn small ghost tn-view" }, t("tn.view"), " ›")));
}

export function tournamentsView(el: HTMLElement, arg: string): View {
  let tab: Tab = TABS.includes(arg as Tab) ? (arg as Tab) : "upcoming";
  let rows: any[] | null = null;
  let error = "";
  let timer = 0;
  let seq = 0;

  async function load(): Promise<void> {
    const mine = ++seq;
    try {
      const found = await get(`/api/tournaments?status=${tab}`);
      if (mine !== seq) return;
      // Unchanged (the echo of the player's own tap): no repaint under their finger.
      if (!error && rows !== null && JSON.stringify(found) === JSON.stringify(rows)) return;
      rows = found;
      error = "";
    } catch (e) {
      if (mine !== seq) return;
      error = errorText(e);
      rows = rows ?? [];
    }
    render();
  }

  function choose(next: Tab): void {
    tab = next;
    rows = null;
    history.replaceState(null, "", `#/tournaments/${tab}`);
    render();
    load();
  }

  function render(): void {
    if (held.pressed) {
      held.stale = true;
      return;
    }
    const list = rows === null ? spinner()
      : error ? h("p", { class: "error", role: "alert" }, error)
      : rows.length ? rows.map((r) => card(r, load))
      : h("p", { class: "empty panel" }, t(EMPTY_KEYS[tab]));
    mount(el, h("section", { class: "page tn-page", id: "tn-list" },
      h("div", { class: "tn-top" },
        h("h1", null, t("tn.title")),
        h("button", { type: "button", class: "btn gold", id: "tn-create", onclick: () => sitGoDialog() }, "+ ", t("tn.create"))),
      h("div", { class: "tabs tn-tabs", role: "tablist" },
        ...TABS.map((name) => h("button", {
          type: "button", role: "tab", id: `tn-tab-${name}`, class: `tab${name === tab ? " active" : ""}`,
          "aria-selected": name === tab ? "true" : "false", onclick: () => choose(name),
        }, t(TAB_KEYS[name])))),
      h("div", { class: "tn-scroll", role: "tabpanel", "aria-labelledby": `tn-tab-${tab}` }, list)));
  }

  // A registration, a start, a result anywhere: the list is read again (at most 4 a second).
  const off = socket.on("tournament", () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(load, 250);
  });
  const held = holdWhilePressed(el, () => render());
  socket.setLobby(true);
  load();
  render();
  return {
    render,
    destroy() {
      off();
      held.off();
      window.clearTimeout(timer);
      socket.setLobby(false);
    },
  };
}

/** A live repaint replaces every element: one between a press and its release would
 * swallow the tap. While a pointer is down on `el` repaints wait (2 s at most), then the
 * latest one is painted. */
export function holdWhilePressed(el: HTMLElement, paint: () => void) {
  const state = { pressed: false, stale: false, off: () => undefined as void };
  let timer = 0;
  const release = () => {
    if (!state.pressed) return;
    state.pressed = false;
    window.clearTimeout(timer);
    if (state.stale) {
      state.stale = false;
      window.setTimeout(paint, 0);
    }
  };
  const press = () => {
    state.pressed = true;
    window.clearTimeout(timer);
    timer = window.setTimeout(release, 2000);
  };
  el.addEventListener("pointerdown", press, true);
  window.addEventListener("pointerup", release, true);
  window.addEventListener("pointercancel", release, true);
  state.off = () => {
    el.removeEventListener("pointerdown", press, true);
    window.removeEventListener("pointerup", release, true);
    window.removeEventListener("pointercancel", release, true);
    window.clearTimeout(timer);
  };
  return state;
}

// ---------------------------------------------------------------- "Crear Sit & Go"

const SIZES = [4, 8, 16];
const MINUTES = [5, 10, 15, 20, 30, 45, 60];
const BOT_WAIT = [10, 30, 60, 120, 300];

/** The SitGoIn fields (docs/tournaments.md) in a sheet; the creator is registered. */
export function sitGoDialog(): void {
  const option = (value: string | number, label: string, selected = false) =>
    h("option", { value: String(value), selected }, label);
  const name = h("input", { id: "tn-name", maxlength: 60, value: "Sit & Go", required: true }) as HTMLInputElement;
  const preset = h("select", { id: "tn-preset" },
    ...PRESET_NAMES.filter((p) => p !== "brasil").map((p) => option(p, presetName(p), p === "burraco"))) as HTMLSelectElement;
  const format = h("select", { id: "tn-format" },
    option("knockout", t("tn.knockout"), true), option("swiss", t("tn.swiss"))) as HTMLSelectElement;
  const players = h("select", { id: "tn-players" },
    option(2, t("tn.oneVsOne"), true), option(4, t("tn.pairs"))) as HTMLSelectElement;
  const entrants = h("select", { id: "tn-entrants" }) as HTMLSelectElement;
  const buyIn = h("input", { id: "tn-buyin", type: "number", min: 0, step: 100, value: 0, inputmode: "numeric" }) as HTMLInputElement;
  const rounds = h("select", { id: "tn-rounds" }, option(0, t("tn.roundsAuto"), true),
    ...[2, 3, 4, 5, 6, 7].map((n) => option(n, String(n)))) as HTMLSelectElement;
  const hands = h("select", { id: "tn-hands" }, ...[1, 2, 3, 4, 5, 6, 8, 10].map((n) => option(n, String(n), n === 2))) as HTMLSelectElement;
  const minutes = h("select", { id: "tn-minutes" }, ...MINUTES.map((m) => option(m, t("tn.minutes", { n: m }), m === 20))) as HTMLSelectElement;
  const duplicate = h("input", { id: "tn-duplicate", type: "checkbox" }) as HTMLInputElement;
  const bots = h("input", { id: "tn-bots", type: "checkbox", checked: true }) as HTMLInputElement;
  const botWait = h("select", { id: "tn-botwait" }, ...BOT_WAIT.map((s) => option(s, t("tn.seconds", { n: s }), s === 60))) as HTMLSelectElement;
  const turbo = h("input", { id: "tn-turbo", type: "checkbox" }) as HTMLInputElement;
  const error = h("p", { class: "error", role: "alert", id: "tn-create-error" });
  const submit = h("button", { type: "submit", class: "btn primary", id: "tn-submit" }, t("tn.createBtn")) as HTMLButtonElement;
  const roundsField = field(t("tn.rounds"), rounds, t("tn.roundsHint"));
  const botWaitField = field(t("tn.botWait"), botWait);

  function sync(): void {
    const pairs = players.value === "4";
    const chosen = entrants.value || "8";
    mount(entrants, ...SIZES.map((n) => option(n, t(pairs ? "tn.sizePairs" : "tn.sizePlayers", { n }), String(n) === chosen)));
    roundsField.hidden = format.value !== "swiss";
    botWaitField.hidden = !bots.checked;
  }
  for (const control of [format, players, bots]) control.addEventListener("change", sync);
  sync();

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    if (submit.disabled) return;
    submit.disabled = true;
    error.textContent = "";
    try {
      const made = await post("/api/tournaments", {
        name: name.value.trim() || "Sit & Go",
        preset: preset.value,
        format: format.value,
        players: Number(players.value),
        entrants: Number(entrants.value),
        buy_in: Math.max(0, Math.floor(Number(buyIn.value) || 0)),
        rounds: format.value === "swiss" ? Number(rounds.value) : 0,
        hands: Number(hands.value),
        round_seconds: Number(minutes.value) * 60,
        duplicate: duplicate.checked,
        allow_bots: bots.checked,
        bot_fill_seconds: Number(botWait.value),
        turbo: turbo.checked,
      });
      dlg.close();
      await refreshWallet();
      location.hash = `#/tournament/${made.id}`;
    } catch (err) {
      error.textContent = errorText(err);
      submit.disabled = false;
    }
  }

  const form = h("form", { class: "form tn-form", onsubmit: create },
    field(t("tn.name"), name),
    h("div", { class: "tn-grid" },
      field(t("lobby.modality"), preset),
      field(t("tn.format"), format),
      field(t("lobby.players"), players),
      field(t("tn.size"), entrants),
      field(t("tn.buyIn"), buyIn, t("tn.buyInHint")),
      roundsField,
      field(t("tn.hands"), hands),
      field(t("tn.roundTime"), minutes)),
    checkbox(t("tn.duplicate"), duplicate, t("tn.duplicateHint")),
    checkbox(t("tn.allowBots"), bots, t("tn.allowBotsHint")),
    botWaitField,
    checkbox(t("lobby.turbo"), turbo, t("create.turboHint")),
    error,
    h("div", { class: "row end" }, submit));
  const dlg = dialog(t("tn.createTitle"), form);
  dlg.el.classList.add("tn-sheet");
  dlg.el.parentElement?.classList.add("tn-sheet-overlay");
}

// ---------------------------------------------------------------- the profile's results

/** The "Torneos" section of a profile: finished tournaments and the places taken. */
export function profileTournaments(userId: number): HTMLElement {
  const box = h("section", { class: "panel tn-profile", id: "profile-tournaments", "aria-labelledby": "pt-title" },
    h("h2", { id: "pt-title" }, t("tn.title")), spinner());
  get(`/api/users/${userId}/tournaments`).then((results: any[]) => {
    mount(box, h("h2", { id: "pt-title" }, t("tn.title")), results.length
      ? h("ul", { class: "tn-results" }, ...results.map((r) => h("li", { "data-tid": String(r.id) },
        h("span", { class: `tn-medal p${Math.min(r.place ?? 4, 4)}`, "aria-hidden": "true", "data-raw": "" }, r.place ? String(r.place) : "–"),
        h("span", { class: "tn-res-main" },
          h("a", { href: `#/tournament/${r.id}` }, raw(r.name)),
          h("small", { class: "muted" }, formatName(r.format), " · ", r.finished_at ? dateTime(new Date(r.finished_at)) : "")),
        h("span", { class: "tn-res-place" }, r.place ? t("tn.placeOf", { place: r.place, of: r.of }) : "–"),
        r.prize ? h("span", { class: "tn-res-prize" }, "+", coins(r.prize)) : null)))
      : h("p", { class: "empty" }, t("tn.profileEmpty")));
  }).catch((e) => mount(box, h("h2", { id: "pt-title" }, t("tn.title")), h("p", { class: "error" }, errorText(e))));
  return box;
}
