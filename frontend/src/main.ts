// Boot, the shell (header, connection banner) and the hash router.
import "./styles.css";
import { api, get, post, errorText } from "./api";
import { h, mount, raw, fmt } from "./dom";
import { LANGS, clockTime, dayWord, headNum, initLang, laterWords, num, onLang, serverLang, setLang, lang, t, tk, type Lang } from "./i18n";
import { backoff, CLOSE, socket } from "./socket";
import { app, changed, onChange, refreshEquipped, refreshUnread, refreshWallet, setWallet, notifParams, type Invite } from "./state";
import { toast, coinIcon, gemIcon, avatarImg, type ToastAction } from "./ui";
import { answerInvite } from "./invites";
import { welcomeView } from "./views/welcome";
import { lobbyView } from "./views/lobby";
import { claimDialog } from "./views/account";
import type { View } from "./view";
import { guiding } from "./views/learn/offer";
import { localValidity, playerName } from "./words";

export type { View };

const root = document.getElementById("app")!;
const header = h("header", { class: "topbar" });
const banner = h("div", { class: "banner", role: "alert", hidden: true });
const main = h("main", { id: "main", tabindex: "-1" });
let current: View | null = null;

/** The screen the address names and its argument: "#/table/ID" is ["table", "ID"]. */
function hashRoute(): [string, string] {
  const [, name = "", arg = ""] = location.hash.replace(/^#/, "").split("/");
  return [name, arg];
}

function route(): void {
  current?.destroy?.();
  current = null;
  // Each screen gets its own box: a screen that finishes loading after the player left
  // it paints into a detached box, never over the next screen.
  const box = h("div", { class: "view" });
  mount(main, box);
  if (!app.me) {
    current = welcomeView(box, boot);
    current.render();
    renderHeader();
    return;
  }
  const [name, arg] = hashRoute();
  switch (name) {
    case "table": current = lazyView(() => import("./views/table").then((m) => m.tableView(box, arg))); break;
    case "replay": current = lazyView(() => import("./views/replay").then((m) => m.replayView(box, arg))); break;
    case "shop": current = lazyView(() => import("./views/shop").then((m) => m.shopView(box, arg))); break;
    case "things": current = lazyView(() => import("./views/things").then((m) => m.thingsView(box))); break;
    case "notifications": current = lazyView(() => import("./views/notifications").then((m) => m.notificationsView(box))); break;
    case "friends": current = lazyView(() => import("./views/friends").then((m) => m.friendsView(box))); break;
    case "profile": { const id = Number(arg) || app.me.id; current = lazyView(() => import("./views/profile").then((m) => m.profileView(box, id))); break; }
    case "ranking": current = lazyView(() => import("./views/ranking").then((m) => m.rankingView(box))); break;
    case "rules": current = lazyView(() => import("./views/learn/rules").then((m) => m.rulesView(box, arg))); break;
    // Tournaments (views/tournaments.ts, views/tournament.ts): loaded on first use.
    case "tournaments": current = lazyView(() => import("./views/tournaments").then((m) => m.tournamentsView(box, arg))); break;
    case "tournament": current = lazyView(() => import("./views/tournament").then((m) => m.tournamentView(box, Number(arg)))); break;
    default: current = lobbyView(box);
  }
  current.render();
  renderHeader();
  document.body.dataset.view = name || "lobby";
}

/** A screen whose code loads on first use: only the lobby (and the welcome) are in the
 * first load (tests/e2e/test_client_static.py keeps it within its budget). */
function lazyView(load: () => Promise<View>): View {
  let inner: View | null = null;
  let gone = false;
  Promise.all([laterWords(), load()]).then(([, view]) => {
    if (gone) return view.destroy?.();
    inner = view;
    view.render();
  }).catch(() => toast(t("err.unknown"), "error"));
  return { render: () => inner?.render(), destroy: () => { gone = true; inner?.destroy?.(); } };
}

function navLink(hash: string, label: string, badge?: number): HTMLElement {
  const here = (location.hash || "#/") === hash || (hash === "#/" && location.hash === "");
  const section = hash.replace(/^#\/?/, "") || "lobby";
  // The notifications entry is a bell on a small phone (its word stays for screen
  // readers), so the seven sections and the badge keep to two rows in every language.
  const words = section === "notifications"
    ? [h("span", { class: "nav-bell", "aria-hidden": "true" }), h("span", { class: "nav-word" }, label)]
    : [label];
  return h("a", { href: hash, class: here ? "active" : null, "aria-current": here ? "page" : null, "data-nav": section, title: section === "notifications" ? label : null },
    ...words, badge ? h("span", { class: "badge", "aria-label": t("nav.unread", { n: badge }) }, String(badge)) : null);
}

/** "Torneos": active on the list and on a tournament's page. */
function tournamentsLink(): HTMLElement {
  const link = navLink("#/tournaments", t("nav.tournaments"));
  if (/^#\/tournament\//.test(location.hash)) { link.className = "active"; link.setAttribute("aria-current", "page"); }
  return link;
}

/** One balance in the head: a long one shortened ("1,2 M"), whole in its title and for
 * screen readers; ``data-n`` holds the exact amount. */
function amount(kind: "coins" | "credits", n: number, icon: Node): HTMLElement {
  const word = kind === "coins" ? t("wallet.coins") : t("wallet.credits");
  const whole = `${fmt(n)} ${word}`;
  const shown = headNum(n);
  const short = shown !== fmt(n);
  return h("span", { class: kind, title: short ? whole : word }, icon,
    h("span", { "data-raw": "", "data-n": String(n), "aria-hidden": short ? "true" : null }, shown),
    h("span", { class: "sr-only" }, short ? whole : ` ${word}`));
}

function renderHeader(): void {
  const langSelect = h("select", {
    id: "lang", "aria-label": t("nav.language"), class: "lang", "data-lang-names": "",
    onchange: (e: Event) => setLang((e.target as HTMLSelectElement).value as Lang),
  }, ...LANGS.map((l) => h("option", { value: l.code, selected: l.code === lang() }, l.name)));
  const me = app.me;
  const w = app.wallet;
  mount(header,
    h("a", { href: "#/", class: "brand", "aria-label": t("nav.home") },
      h("span", { class: "logo", "aria-hidden": "true" }, "♠♥"), h("span", { class: "brand-name" }, t("app.name"))),
    me ? h("nav", { class: "nav", "aria-label": t("nav.main") },
      navLink("#/", t("nav.lobby")),
      tournamentsLink(),
      navLink("#/ranking", t("nav.ranking")),
      navLink("#/shop", t("nav.shop")),
      navLink("#/things", t("nav.things")),
      navLink("#/friends", t("nav.friends")),
      navLink("#/notifications", t("nav.notifications"), app.unread)) : null,
    h("div", { class: "right" },
      me && w ? h("div", { class: "wallet", "aria-label": t("wallet.label") },
        amount("coins", w.coins, coinIcon()), amount("credits", w.credits, gemIcon())) : null,
      langSelect,
      me ? h("details", { class: "usermenu" },
        // The name says what is on screen too (the nickname), as voice control expects.
        h("summary", { "aria-label": `${t("nav.account")}: ${playerName(me.nickname)}` },
          avatarImg(app.equipped.avatar, "small"),
          raw(me.nickname, "span", "me-name")),
        h("div", { class: "menu" },
          h("a", { href: `#/profile/${me.id}` }, t("nav.profile")),
          me.is_guest ? h("button", { type: "button", onclick: () => claimDialog(afterClaim) }, t("account.claim")) : null,
          h("button", { type: "button", onclick: logout }, t("account.logout")))) : null,
    ),
  );
  // On a phone the links scroll sideways: keep the current page's link in sight.
  const nav = header.querySelector<HTMLElement>(".nav");
  const active = nav?.querySelector<HTMLElement>("a.active");
  if (nav && active && nav.scrollWidth > nav.clientWidth) {
    const a = active.getBoundingClientRect(), n = nav.getBoundingClientRect();
    nav.scrollLeft += a.left - n.left - (n.width - a.width) / 2;
  }
}

function afterClaim(me: any): void {
  app.me = me;
  changed();
  toast(t("account.claimed"), "ok");
}

async function logout(): Promise<void> {
  try {
    await post("/api/auth/logout");
  } catch { /* the cookie goes either way */ }
  socket.stop();
  app.me = null;
  location.hash = "#/";
  route();
}

function renderBanner(): void {
  const code = socket.closeCode;
  const refused = code === CLOSE.BAD_ORIGIN;
  const down =
    !!app.me && socket.state !== "open" && !socket.isSwitching && (socket.hasConnected || refused);
  banner.hidden = !down;
  if (!down) return;
  banner.dataset.code = String(code);
  if (refused) {
    mount(banner, t("conn.refused", { reason: t("conn.badOrigin") }));
  } else if (code === CLOSE.TOO_MANY) {
    mount(banner, t("conn.otherTab"), " ",
      h("button", { type: "button", class: "btn small", id: "reconnect", onclick: () => socket.reconnect() }, t("conn.reconnect")));
  } else {
    mount(banner, h("span", { class: "dot", "aria-hidden": "true" }),
      t(socket.restarting || code === CLOSE.RESTART ? "conn.restart" : "conn.lost"));
  }
}

function sessionEnded(): void {
  app.me = null;
  location.hash = "#/";
  route();
  renderBanner();
  toast(t("conn.ended"), "error");
}

/** Accept / Decline buttons for an invitation's or a challenge's toast. */
function answers(invite: Invite): ToastAction[] {
  return [
    { label: t("common.accept"), cls: "primary toast-accept", run: () => answerInvite(invite, true) },
    { label: t("common.decline"), cls: "toast-decline", run: () => answerInvite(invite, false) },
  ];
}

function personalFrames(): void {
  socket.on("invitation", (f) => {
    app.invites = [...app.invites.filter((i) => i.table.id !== f.table.id), { kind: "invitation", table: f.table, from: f.from }];
    toast(t("invite.received", { name: f.from.name }), "info", answers(app.invites[app.invites.length - 1]));
    changed();
  });
  socket.on("challenge", (f) => {
    app.invites = [...app.invites.filter((i) => i.table.id !== f.table.id), { kind: "challenge", table: f.table, from: f.from }];
    toast(t("challenge.received", { name: f.from.name }), "info", answers(app.invites[app.invites.length - 1]));
    changed();
  });
  socket.on("challenge_accepted", (f) => {
    toast(t("challenge.accepted", { name: f.by?.name ?? "" }), "ok");
    location.hash = `#/table/${f.table}`;
  });
  socket.on("challenge_declined", (f) => toast(t("challenge.declined", { name: f.by?.name ?? "" })));
  socket.on("tournament_round", (f) => {
    // "Your next round starts": the table opens by itself (the last round's finished
    // table is usually still on screen).
    toast(t("tn.nextRound"), "ok");
    location.hash = `#/table/${f.table_id}`;
  });
  socket.on("seat_freed", (f) => toast(tk(`err.${f.code}`, "err.unknown"), "error"));
  socket.on("wallet", (f) => {
    setWallet({ coins: f.coins, credits: f.credits, v: f.v });
    changed();
  });
  socket.on("notifications_unread", (f) => {
    app.unread = f.count;
    changed();
  });
  socket.on("notification", (f) => {
    toast(tk(`notif.${f.kind}`, "notif.generic", notifParams(f.payload ?? {})));
  });
}

async function boot(): Promise<void> {
  try {
    app.me = await get("/api/me");
  } catch {
    app.me = null;
  }
  if (app.me) {
    tellLanguage();
    // A table page (a reload, a link) opens its socket routed by the table right away.
    const [name, arg] = hashRoute();
    socket.start(name === "table" && arg ? arg : null);
    refreshWallet();
    refreshUnread();
    refreshEquipped();
  }
  route();
}

/** The server writes its own strings (table names, notifications) in our language. */
function tellLanguage(): void {
  if (app.me) api("PUT", "/api/me/language", { language: serverLang() }).catch(() => undefined);
}

async function start(): Promise<void> {
  await initLang();
  localValidity();
  if (guiding()) void import("./views/learn/guide").then((m) => m.installGuide());
  mount(root, h("a", { href: "#main", class: "skip" }, t("nav.skip")), header, banner, main);
  onLang(() => {
    (root.firstChild as HTMLElement).textContent = t("nav.skip");
    renderHeader();
    renderBanner();
    current?.render();
    tellLanguage();
  });
  onChange(() => renderHeader());
  socket.onState(renderBanner);
  socket.onSessionEnded(sessionEnded);
  personalFrames();
  window.addEventListener("hashchange", route);
  // Test hooks: tests drive the pseudo-language and read the socket state.
  (window as any).__buraco = { socket, setLang, app, errorText, backoff, i18n: { t, num, dayWord, clockTime } };
  boot();
}

start();
