// "Crear partida": every table option and a house-rules editor naming each option of
// docs/rules-reference.md, part 3, in plain words. Only the options changed from the modality's
// defaults are sent as overrides.
import { get, post, errorText } from "../api";
import { h, mount } from "../dom";
import { t, tk, type Key } from "../i18n";
import { ACE_TO_ACE_BONUS, OPTIONS, PRESETS, PRESET_NAMES, PRESET_PLAYERS, sides, type Preset, type Rules } from "../presets";
import { app } from "../state";
import { checkbox, dialog, field } from "../ui";
import { rulesButton } from "./learn/open";

import { MIN_BET } from "../presets";
export { MIN_BET, presetName } from "../presets";

/** What GET /api/lobby/options says of a special option (pairs, turbo, private). */
interface Gate { locked: boolean; missing: string[]; needs: { level: number; credits: number } }

/** "Se desbloquea en el nivel 2 · Necesita 1 crédito": what a locked option needs. */
function lockText(g: Gate): string {
  return g.missing.map((m) => (m === "level"
    ? t("create.lockedLevel", { level: g.needs.level })
    : t("create.lockedCredits", { credits: g.needs.credits }))).join(" · ");
}

export function createTableDialog(onCreated: (table: any) => void): void {
  let preset: Preset = "cerrado";
  let players = 2;
  let rules: Rules = { ...PRESETS[preset] };
  let houseOpen = false;
  // Special options stay unavailable until the server says which are open: the dialog
  // never offers what the server would refuse.
  let gates: Record<string, Gate> | null = null;
  const locked = (name: string) => gates === null || !!gates[name]?.locked;

  const name = h("input", { id: "ct-name", maxlength: 40, placeholder: t("create.namePlaceholder") }) as HTMLInputElement;
  const bet = h("input", { id: "ct-bet", type: "number", min: MIN_BET, step: 1000, value: MIN_BET }) as HTMLInputElement;
  // No stakes: open to anyone, even without coins (docs/economy.md, "Nobody locked out").
  const free = h("input", { id: "ct-free", type: "checkbox", onchange: () => { bet.disabled = free.checked; } }) as HTMLInputElement;
  if (app.wallet && app.wallet.coins < MIN_BET) free.checked = bet.disabled = true;
  // Guests and new accounts: the server refuses bets above their cap (stake_too_high).
  const maxBet = app.wallet?.max_bet ?? null;
  if (maxBet !== null) bet.max = String(maxBet);
  const betHint = maxBet !== null
    ? `${t("create.betHint", { min: MIN_BET })} ${t("create.betMaxHint", { max: maxBet })}`
    : t("create.betHint", { min: MIN_BET });
  const priv = h("input", { id: "ct-private", type: "checkbox" }) as HTMLInputElement;
  const turbo = h("input", { id: "ct-turbo", type: "checkbox" }) as HTMLInputElement;
  // Each player's time bank per hand: the server's default (for the table's speed), none,
  // or a number of seconds (docs/rules-reference.md, "The turn clock").
  const standardBank = h("option", { value: "" }, t("create.timeBankDefault", { n: 60, turbo: 20 })) as HTMLOptionElement;
  const timeBank = h("select", { id: "ct-time-bank" },
    standardBank,
    h("option", { value: "0" }, t("create.timeBankNone")),
    ...[30, 90, 120].map((n) => h("option", { value: String(n) }, t("table.secondsShort", { n })))) as HTMLSelectElement;
  const presetSel = h("select", { id: "ct-preset" }) as HTMLSelectElement;
  const playersSel = h("select", { id: "ct-players" }) as HTMLSelectElement;
  const house = h("div", { class: "house", id: "house-rules" });
  const error = h("p", { class: "error", role: "alert" });
  const special = h("p", { class: "hint special" });
  const privLock = h("small", { class: "lock-note", id: "ct-private-lock" });
  const turboLock = h("small", { class: "lock-note", id: "ct-turbo-lock" });

  function applyGates(): void {
    for (const [input, note, name] of [[priv, privLock, "private"], [turbo, turboLock, "turbo"]] as const) {
      input.disabled = locked(name);
      if (input.disabled) input.checked = false;
      const gate = gates?.[name];
      note.textContent = gate?.locked ? lockText(gate) : "";
    }
    fillPlayers();
    updateSpecial();
    renderHouse();
  }

  function fillPlayers(): void {
    const allowed = PRESET_PLAYERS[preset];
    const open = allowed.filter((n) => n !== 4 || !locked("pairs"));
    if (!open.includes(players)) players = open[0] ?? allowed[0];
    const pairs = gates?.pairs;
    mount(playersSel, ...allowed.map((n) => {
      const shut = !open.includes(n);
      const text = t("create.playersN", { n }) + (shut && pairs?.locked ? ` · ${lockText(pairs)}` : "");
      return h("option", { value: n, selected: n === players, disabled: shut }, text);
    }));
  }

  function fillPresets(): void {
    mount(presetSel, ...PRESET_NAMES.map((p) => h("option", { value: p, selected: p === preset }, tk(`preset.${p}`))));
  }

  function updateSpecial(): void {
    const isSpecial = priv.checked || turbo.checked || players === 4;
    special.textContent = isSpecial ? t("create.specialCost") : "";
  }

  function optionControl(spec: (typeof OPTIONS)[number]): HTMLElement {
    const id = `rule-${spec.name}`;
    const label = tk(`rule.${spec.name}`);
    const hint = tk(`rule.${spec.name}.hint`, undefined, { bonus: ACE_TO_ACE_BONUS });
    const value = rules[spec.name];
    const changedMark = value !== PRESETS[preset][spec.name] ? " •" : "";
    if (spec.kind === "bool") {
      const input = h("input", {
        id, type: "checkbox", checked: Boolean(value),
        onchange: (e: Event) => { rules[spec.name] = (e.target as HTMLInputElement).checked; renderHouse(); },
      }) as HTMLInputElement;
      return checkbox(label + changedMark, input, hint);
    }
    if (spec.kind === "choice") {
      const values = spec.name === "muertos" ? [0, sides(rules, players)] : spec.values;
      const select = h("select", {
        id,
        onchange: (e: Event) => {
          const raw = (e.target as HTMLSelectElement).value;
          rules[spec.name] = typeof values[0] === "number" ? Number(raw) : raw;
          renderHouse();
        },
      }, ...values.map((v) => {
        // A select cannot wrap its words: a choice with a short form shows that, and the
        // hint under the box says the rest (the rules page keeps the long form).
        const key = `rule.${spec.name}.${v}`;
        const shortKey = `${key}.short`;
        const text = tk(tk(shortKey) !== shortKey ? shortKey : key, undefined, { bonus: ACE_TO_ACE_BONUS });
        return h("option", { value: v, selected: v === value }, text === key ? String(v) : text);
      }));
      return field(label + changedMark, select, hint);
    }
    const input = h("input", {
      id, type: "number", min: spec.min, max: spec.max, step: spec.step ?? 1, value: Number(value),
      onchange: (e: Event) => { rules[spec.name] = Number((e.target as HTMLInputElement).value); renderHouse(); },
    });
    return field(label + changedMark, input, hint);
  }

  function renderHouse(): void {
    const focused = document.activeElement?.id;
    if (!houseOpen) {
      mount(house);
    } else {
      mount(house,
        h("p", { class: "hint" }, t("create.houseIntro")),
        h("div", { class: "rules-grid" }, ...OPTIONS.map(optionControl)),
        h("button", { type: "button", class: "btn small", onclick: () => { rules = { ...PRESETS[preset] }; renderHouse(); } }, t("create.resetRules")));
    }
    if (focused) document.getElementById(focused)?.focus();
  }

  function overrides(): Rules {
    const out: Rules = {};
    for (const spec of OPTIONS) {
      if (spec.name === "target_score" || spec.name === "muertos") continue;
      if (rules[spec.name] !== PRESETS[preset][spec.name]) out[spec.name] = rules[spec.name];
    }
    const muertos = rules.muertos ? sides(rules, players) : 0;
    if (muertos !== PRESETS[preset].muertos) out.muertos = muertos;
    return out;
  }

  presetSel.addEventListener("change", () => {
    preset = presetSel.value as Preset;
    rules = { ...PRESETS[preset] };
    fillPlayers();
    renderHouse();
    updateSpecial();
  });
  playersSel.addEventListener("change", () => {
    players = Number(playersSel.value);
    updateSpecial();
    renderHouse();
  });
  priv.addEventListener("change", updateSpecial);
  turbo.addEventListener("change", updateSpecial);

  const houseToggle = h("button", {
    type: "button", class: "btn ghost", id: "house-toggle", "aria-expanded": "false", "aria-controls": "house-rules",
    onclick: () => {
      houseOpen = !houseOpen;
      houseToggle.setAttribute("aria-expanded", String(houseOpen));
      renderHouse();
    },
  }, t("create.houseRules"));

  const submit = h("button", { type: "submit", class: "btn primary", id: "ct-submit" }, t("create.submit")) as HTMLButtonElement;
  const form = h("form", {
    class: "form create-table",
    onsubmit: async (e: Event) => {
      e.preventDefault();
      error.textContent = "";
      submit.disabled = true;
      try {
        const target = Number(rules.target_score) || 0;
        const table = await post("/api/tables", {
          name: name.value.trim(), preset, players, bet: free.checked ? 0 : Math.max(MIN_BET, Number(bet.value) || MIN_BET),
          private: priv.checked, turbo: turbo.checked, rules: overrides(),
          target_score: target !== PRESETS[preset].target_score ? target : null,
          time_bank: timeBank.value === "" ? null : Number(timeBank.value),
        });
        dlg.close();
        onCreated(table);
      } catch (err) {
        error.textContent = errorText(err);
      } finally {
        submit.disabled = false;
      }
    },
  },
  h("div", { class: "grid2" },
    field(t("create.name"), name),
    field(t("create.modality"), h("div", { class: "row" }, presetSel, rulesButton(() => preset, "btn ghost small"))),
    field(t("create.players"), playersSel, t("create.pairsHint")),
    h("div", null, field(t("create.bet"), bet, betHint),
      checkbox(t("create.free"), free, t("create.freeHint"))),
    field(t("create.timeBank"), timeBank, t("create.timeBankHint")),
  ),
  h("div", { class: "row wrap" },
    h("div", null, checkbox(t("create.private"), priv, t("create.privateHint")), privLock),
    h("div", null, checkbox(t("create.turbo"), turbo, t("create.turboHint")), turboLock)),
  special,
  houseToggle,
  house,
  error,
  h("div", { class: "row end" }, submit));
  fillPresets();
  applyGates();
  const dlg = dialog(t("create.title"), form, { wide: true });
  get("/api/lobby/options")
    .then((o) => {
      gates = o.options ?? {};
      const b = o.time_bank;
      if (b) standardBank.textContent = t("create.timeBankDefault", { n: b.normal, turbo: b.turbo });
    })
    .catch(() => { gates = {}; }) // unknown: offer them; the server's refusal is shown
    .then(applyGates);
}

export function ruleLabel(name: string): string {
  return tk(`rule.${name}` as Key);
}
