// The modalities and every option of docs/rules-reference.md (part 3), for the house-rules editor.
// Values mirror app/rules/ruleset.py PRESETS; only options that differ from the chosen
// preset are sent as overrides.

import { tk } from "./i18n";

export const PRESET_NAMES = [
  "abierto", "abierto_sucio", "cerrado", "cerrado_sucio", "cerrado_stcl", "burraco", "burako",
  "brasil",
] as const;
export type Preset = (typeof PRESET_NAMES)[number];

export type Rules = Record<string, number | string | boolean>;

/** A clean ace-to-ace canasta's bonus (RULES.md section 3), for the option's words. */
export const ACE_TO_ACE_BONUS = 1000;

const BASE: Rules = {
  pairs: true, jokers: 4, groups: true, group_distinct_suits: false, group_max: 0,
  one_group_per_rank: false, discard_pile: "open", single_take_no_discard: false,
  ace_to_ace: "allowed", royal: true, semi_clean: false, close_requires: "clean",
  go_out_by_meld: true, muertos: 2, muerto_unused_penalty: true, stock_end: 0,
  card_points: "standard", two_points: 10, joker_points: 20, wild_relocation: true,
  add_to_any_meld: false, target_score: 0, hand_size: 11, muerto_size: 11, close_bonus: 100,
  muerto_penalty: 100,
};

export const PRESETS: Record<Preset, Rules> = {
  abierto: { ...BASE, jokers: 0, groups: false },
  abierto_sucio: {
    ...BASE, single_take_no_discard: true, ace_to_ace: "wild_end_only", royal: false,
    semi_clean: true, close_requires: "any", go_out_by_meld: false, muerto_unused_penalty: false,
    two_points: 20, joker_points: 30,
  },
  cerrado: { ...BASE, discard_pile: "closed" },
  cerrado_sucio: { ...BASE, discard_pile: "closed", close_requires: "any" },
  cerrado_stcl: { ...BASE, discard_pile: "closed", groups: false },
  burraco: {
    ...BASE, single_take_no_discard: true, ace_to_ace: "wild_end_only", royal: false,
    semi_clean: true, close_requires: "any", go_out_by_meld: false, muerto_unused_penalty: false,
    two_points: 20, joker_points: 30,
  },
  burako: {
    ...BASE, one_group_per_rank: true, ace_to_ace: "no", royal: false, close_requires: "any",
    stock_end: 2, two_points: 20, joker_points: 50,
  },
  brasil: {
    ...BASE, pairs: false, group_distinct_suits: true, group_max: 4, discard_pile: "any_depth",
    ace_to_ace: "no", royal: false, go_out_by_meld: false, muertos: 0,
    muerto_unused_penalty: false, card_points: "face", two_points: 20, joker_points: 20,
    wild_relocation: false, add_to_any_meld: true, target_score: 3000,
  },
};

export const PRESET_PLAYERS: Record<Preset, number[]> = Object.fromEntries(
  PRESET_NAMES.map((p) => [p, p === "brasil" ? [2, 3, 4] : [2, 4]]),
) as Record<Preset, number[]>;

export type OptionSpec =
  | { name: string; kind: "bool" }
  | { name: string; kind: "choice"; values: (string | number)[] }
  | { name: string; kind: "number"; min: number; max: number; step?: number };

// Every option of section 9, plus the deal sizes and bonuses the engine also takes.
export const OPTIONS: OptionSpec[] = [
  { name: "pairs", kind: "bool" },
  { name: "jokers", kind: "choice", values: [0, 4] },
  { name: "groups", kind: "bool" },
  { name: "group_distinct_suits", kind: "bool" },
  { name: "group_max", kind: "number", min: 0, max: 12 },
  { name: "one_group_per_rank", kind: "bool" },
  { name: "discard_pile", kind: "choice", values: ["open", "closed", "any_depth"] },
  { name: "single_take_no_discard", kind: "bool" },
  { name: "ace_to_ace", kind: "choice", values: ["allowed", "wild_end_only", "no"] },
  { name: "royal", kind: "bool" },
  { name: "semi_clean", kind: "bool" },
  { name: "close_requires", kind: "choice", values: ["clean", "any"] },
  { name: "go_out_by_meld", kind: "bool" },
  { name: "muertos", kind: "choice", values: [0, 2] },
  { name: "muerto_unused_penalty", kind: "bool" },
  { name: "stock_end", kind: "number", min: 0, max: 20 },
  { name: "card_points", kind: "choice", values: ["standard", "face"] },
  { name: "two_points", kind: "number", min: 0, max: 1000, step: 5 },
  { name: "joker_points", kind: "number", min: 0, max: 1000, step: 5 },
  { name: "wild_relocation", kind: "bool" },
  { name: "add_to_any_meld", kind: "bool" },
  { name: "target_score", kind: "number", min: 0, max: 100000, step: 500 },
  { name: "hand_size", kind: "number", min: 1, max: 20 },
  { name: "muerto_size", kind: "number", min: 1, max: 20 },
  { name: "close_bonus", kind: "number", min: 0, max: 1000, step: 10 },
  { name: "muerto_penalty", kind: "number", min: 0, max: 1000, step: 10 },
];

/** The rule values with muertos adjusted to the number of sides (one per side). */
export function sides(rules: Rules, players: number): number {
  return players === 4 && rules.pairs ? 2 : players;
}

/** The smallest stake (app/tables/storage/meta.py); a table may also have none (bet 0). */
export const MIN_BET = 6000;

/** A modality's name in the reader's language. */
export function presetName(p: string): string {
  return tk(`preset.${p}`);
}
