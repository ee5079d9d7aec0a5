// The replay's frames as GET /api/games/{id}/replay/frames sends them (docs/replay.md).
import type { GameView } from "../../game";

export interface ReplayPlayer {
  seat: number;
  team: number;
  name: string;
  bot: boolean;
  user_id: number | null;
}

/** The whole table after a step: the spectator's view plus every hand. */
export type FrameState = GameView & { hands: string[][]; muerto_cards: string[][] };

export interface Frame {
  n: number; // 0 = the deal
  seat: number | null;
  command: Record<string, unknown> | null;
  events: any[];
  state: FrameState;
}

export interface ReplayHand {
  hand_no: number;
  dealer: number;
  cutter: number | null;
  cut: number | null;
  cut_by: "player" | "bot" | "timeout" | null;
  commitment: string;
  server_seed: string;
  frames: Frame[];
  hand_scores: number[];
  totals: number[];
}

export interface ReplayFrames {
  game_id: string;
  version: number;
  players: ReplayPlayer[];
  rules: Record<string, unknown>;
  totals: number[];
  winner_team: number | null;
  hands: ReplayHand[];
}
