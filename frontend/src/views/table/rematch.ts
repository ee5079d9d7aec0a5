// "Revancha" on the result sheet: offer or accept (the same seats, bet and rules at a new
// table), decline, and see who said yes and the seconds left. The server pushes each
// change as a `rematch` message on every player's own channel.
import { h, type VNode } from "preact";
import { t, tk } from "../../i18n";

export interface RematchState {
  state: "none" | "open" | "starting" | "started" | "declined" | "expired" | "failed";
  accepted?: number[];
  waiting?: number[];
  deadline?: number | null;
  seconds?: number; // an offer's whole time
  new_table?: string | null;
  code?: string | null;
  by?: { id: number; name: string } | null;
}

export interface RematchInput {
  r: RematchState | null;
  seat: number | null;
  now: number; // server time, seconds
  name: (seat: number) => string;
  offer: () => void;
  decline: () => void;
}

const STEP: Record<RematchState["state"], number> = {
  none: 0, open: 1, starting: 2, started: 3, declined: 3, expired: 3, failed: 3,
};

/** Whether `next` may replace `cur` on screen. The state reaches the page by three
 * roads (the answer to one's own offer or decline, the pushes on one's socket, and the
 * state asked for when a finished table is shown, after a reload or a reconnect), which
 * may arrive out of order: an older one never undoes a newer. An offer only moves
 * forward (none, open, starting, then an end), its yeses only grow, and a later offer
 * of the same table (once an old one's record faded) has a later deadline. */
export function isNewer(cur: RematchState | null, next: RematchState): boolean {
  if (!cur) return true;
  const was = cur.deadline ?? 0, now = next.deadline ?? 0;
  if (was !== now) return now > was;
  if (STEP[next.state] !== STEP[cur.state]) return STEP[next.state] > STEP[cur.state];
  return (next.accepted?.length ?? 0) >= (cur.accepted?.length ?? 0);
}

function closedText(r: RematchState): string {
  if (r.state === "declined") return t("rematch.declined", { name: r.by?.name ?? "" });
  if (r.state === "expired") return t("rematch.expired");
  return tk(`err.${r.code}`, "rematch.failed");
}

export function rematchView(p: RematchInput): VNode<any> | null {
  if (p.seat === null) return null;
  const r = p.r;
  const state = r?.state ?? "none";
  if (state === "none") {
    return h("div", { class: "rematch", id: "rematch" },
      h("button", { type: "button", class: "btn gold", id: "rematch-offer", onclick: p.offer }, t("rematch.offer")));
  }
  if (state === "declined" || state === "expired" || state === "failed") {
    return h("div", { class: "rematch", id: "rematch" }, h("p", { class: "hint", id: "rematch-status", "data-state": state }, closedText(r!)));
  }
  if (state === "started" && r!.new_table) {
    return h("div", { class: "rematch", id: "rematch" },
      h("p", { class: "hint", id: "rematch-status", "data-state": state }, t("rematch.started")),
      h("a", { class: "btn gold", id: "rematch-go", href: `#/table/${r!.new_table}` }, t("rematch.go")));
  }
  if (state !== "open") {
    return h("div", { class: "rematch", id: "rematch" }, h("p", { class: "hint", id: "rematch-status", "data-state": state }, t("rematch.starting")));
  }
  const accepted = r!.accepted ?? [];
  const waiting = r!.waiting ?? [];
  // Never more than the offer's whole time: a clock estimate a little behind the
  // server's would otherwise show one second too many as the offer arrives.
  const left = Math.max(0, Math.min(r!.seconds ?? Infinity, Math.ceil((r!.deadline ?? p.now) - p.now)));
  const iSaidYes = accepted.includes(p.seat);
  const others = waiting.filter((n) => n !== p.seat); // you see the buttons instead
  return h("div", { class: "rematch", id: "rematch", "data-state": "open" },
    h("p", { id: "rematch-status", "data-state": "open" },
      t("rematch.accepted", { names: accepted.map(p.name).join(", ") }), " · ",
      h("span", { id: "rematch-left", "data-left": left }, t("table.secondsLeft", { n: left }))),
    others.length ? h("p", { class: "hint" }, t("rematch.waitingFor", { names: others.map(p.name).join(", ") })) : null,
    iSaidYes ? null : h("div", { class: "row" },
      h("button", { type: "button", class: "btn gold", id: "rematch-accept", onclick: p.offer }, t("rematch.accept")),
      h("button", { type: "button", class: "btn", id: "rematch-decline", onclick: p.decline }, t("common.decline"))));
}
