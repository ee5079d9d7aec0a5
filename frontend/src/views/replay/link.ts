// Where a replay lives in the client: "#/replay/{game_id}?hand=&n=&seat=". Kept apart
// from the viewer (no Preact, no styles) so the end sheet and the profile can link to a
// replay without loading the viewer.
import { h } from "../../dom";
import { t } from "../../i18n";

export interface ReplayPlace {
  hand?: number; // the hand's number (1 = the first)
  n?: number; // the step within the hand (0 = the deal)
  seat?: number | "all"; // whose eyes: one seat, or every hand open
}

/** The replay's hash route, with the step it opens at. */
export function replayHash(gameId: string, at: ReplayPlace = {}): string {
  const q = new URLSearchParams();
  if (at.hand !== undefined) q.set("hand", String(at.hand));
  if (at.n !== undefined) q.set("n", String(at.n));
  if (at.seat !== undefined) q.set("seat", String(at.seat));
  const query = q.toString();
  return `#/replay/${encodeURIComponent(gameId)}${query ? `?${query}` : ""}`;
}

/** The route's argument ("abc?hand=2&n=5") read back: the game and the step. */
export function parseReplayArg(arg: string): { gameId: string; at: ReplayPlace } {
  const [id, query = ""] = arg.split("?");
  const q = new URLSearchParams(query);
  const int = (k: string): number | undefined => {
    const v = q.get(k);
    return v !== null && /^\d{1,6}$/.test(v) ? Number(v) : undefined;
  };
  const seat = q.get("seat");
  return {
    gameId: decodeURIComponent(id ?? ""),
    at: { hand: int("hand"), n: int("n"), seat: seat === "all" ? "all" : int("seat") },
  };
}

/** A "Ver repetición" link for a list of games (the profile's history). */
export function replayLink(gameId: string, cls = "btn small"): HTMLElement {
  return h("a", { class: cls, href: replayHash(gameId), "data-replay": gameId }, t("replay.open"));
}
