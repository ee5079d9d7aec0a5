// The guided first hand: offered once in the lobby (remembered in this browser), played
// at a table without stakes against an easy bot. A card above the table says what is
// legal now, worded from the server's legal-move feed (the "legal" frames the table
// asks for on each of the player's turns) — never a guess of our own. Skippable at any
// moment; it ends with the first hand.
import "./learn.css";
import { errorText, post } from "../../api";
import { cardsLabel } from "../../cards";
import { h } from "../../dom";
import { applyEvent, type GameView } from "../../game";
import { onLang, t } from "../../i18n";
import { socket } from "../../socket";
import { toast } from "../../ui";

import { OFFERED, TABLE } from "./offer";

export async function startGuide(): Promise<void> {
  try {
    const table = await post("/api/tables", { preset: "abierto", players: 2, bet: 0 });
    await post(`/api/tables/${table.id}/bots`, { bot_strength: "easy" });
    localStorage.setItem(OFFERED, "started");
    sessionStorage.setItem(TABLE, table.id);
    installGuide(); // before the table's first frame arrives
    location.hash = `#/table/${table.id}`;
  } catch (e) {
    toast(errorText(e), "error");
  }
}

/** What the legal commands allow, in a sentence (exported for tests of the wording). */
export function hintFor(commands: any[], game: GameView | null): string {
  if (!commands.length) return t("guide.wait");
  if (commands.some((c) => c.type === "draw")) {
    const pile = commands.some((c) => c.type === "take_discard");
    return pile ? t("guide.drawOrPile", { n: game?.discard.size ?? 0 }) : t("guide.draw");
  }
  const discard = t("guide.discard", { action: t("table.discard") });
  const melds = commands.filter((c) => c.type === "meld");
  if (melds.length) {
    const best = melds.reduce((a, b) => (b.cards.length > a.cards.length ? b : a));
    return `${t("guide.meld", { cards: cardsLabel(best.cards), action: t("table.meld") })} ${discard}`;
  }
  const adds = commands.filter((c) => c.type === "add");
  if (adds.length) return `${t("guide.add", { cards: cardsLabel(adds[0].cards) })} ${discard}`;
  return discard;
}

/** Watches the guided table (installed once at start): shows and updates the hint card. */
let installed = false;

export function installGuide(): void {
  if (installed) return;
  installed = true;
  let card: HTMLElement | null = null;
  let game: GameView | null = null;
  let seat: number | null = null;
  let say: () => string = () => t("guide.wait"); // worded at paint: a language change rewords it
  let over = false;
  const tableId = () => sessionStorage.getItem(TABLE);
  const here = () => !!tableId() && location.hash === `#/table/${tableId()}`;

  function end(how: "skipped" | "done"): void {
    localStorage.setItem(OFFERED, how);
    sessionStorage.removeItem(TABLE);
    card?.remove();
    card = null;
  }

  function paint(): void {
    if (!here()) {
      card?.remove();
      card = null;
      return;
    }
    const next = h("aside", { class: "guide-card", id: "guide-card", role: "status", "aria-live": "polite" },
      h("p", null, h("strong", null, t("guide.title")), say()),
      over
        ? h("button", { type: "button", class: "btn small primary", id: "guide-close", onclick: () => end("done") }, t("common.close"))
        : h("button", { type: "button", class: "btn small ghost", id: "guide-skip", onclick: () => end("skipped") }, t("guide.skip")));
    if (card) card.replaceWith(next);
    else document.body.appendChild(next);
    card = next;
  }

  const mine = (f: any) => !!tableId() && f.table === tableId();
  socket.on("snapshot", (f) => {
    if (!mine(f)) return;
    game = f.game ?? null;
    seat = f.seat;
    if (game && game.turn !== seat) say = () => t("guide.wait");
    paint();
  });
  socket.on("event", (f) => {
    if (!mine(f) || f.kind !== "game" || !game) return;
    game = applyEvent(game, { ...f.event });
    if (f.event.type === "hand_ended") {
      over = true;
      say = () => t("guide.done");
    } else if (!over && game.turn !== seat) {
      say = () => t("guide.wait");
    }
    paint();
  });
  socket.on("legal", (f) => {
    if (!mine(f) || over) return;
    const commands = f.commands ?? [];
    const seen = game;
    say = () => hintFor(commands, seen);
    paint();
  });
  window.addEventListener("hashchange", paint);
  onLang(paint);
}
