// Lobby chat (table === null) and table chat: history by REST, new lines by the socket's
// "chat" frames when the server relays them, and a short poll as a fallback.
import { get, post, errorText } from "../api";
import { h, mount, raw } from "../dom";
import { t } from "../i18n";
import { socket } from "../socket";
import { app } from "../state";
import { toast } from "../ui";

export interface ChatPanel {
  el: HTMLElement;
  render(): void;
  destroy(): void;
  /** Lines from others that arrived while the chat was hidden (a closed side panel);
   * `open`: the chat is shown now, which counts them all as seen. */
  unread(open: boolean): number;
}

export function chatPanel(
  table: string | null, opts: { compact?: boolean; onUnread?: () => void } = {},
): ChatPanel {
  const channel = table ? `table:${table}` : "lobby";
  const path = table ? `/api/chat/tables/${table}` : "/api/chat/lobby";
  const id = table ? "table-chat" : "lobby-chat";
  let lines: any[] = [];
  let lastId = 0;
  let unavailable = false;
  const el = h("section", { class: `panel chat ${opts.compact ? "compact" : ""}`, "aria-labelledby": `${id}-title` });
  const log = h("ol", { class: "chat-log", "aria-live": "polite", id: `${id}-log` });
  const input = h("input", { id: `${id}-input`, maxlength: 300, autocomplete: "off" }) as HTMLInputElement;

  let unseen = 0;
  let loaded = false; // the history's first page is not "new"
  const shown = () => el.isConnected && el.getClientRects().length > 0;

  function add(items: any[]): void {
    let grew = false;
    let fresh = 0;
    for (const m of items) {
      if (m.id <= lastId && lines.some((x) => x.id === m.id)) continue;
      lines.push(m);
      lastId = Math.max(lastId, m.id);
      grew = true;
      if (loaded && m.user_id !== app.me?.id) fresh++;
    }
    loaded = true;
    if (fresh && !shown()) {
      unseen += fresh;
      opts.onUnread?.();
    }
    if (grew) {
      lines = lines.sort((a, b) => a.id - b.id).slice(-100);
      paint();
    }
  }

  async function poll(): Promise<void> {
    try {
      add(await get(`${path}?limit=50${lastId ? `&after_id=${lastId}` : ""}`));
      unavailable = false;
    } catch {
      unavailable = true;
    }
  }

  function paint(): void {
    mount(log, ...lines.map((m) =>
      h("li", null, raw(m.nickname, "strong", "who"), " ", raw(m.text, "span", "text"))));
    log.scrollTop = log.scrollHeight;
  }

  async function send(e: Event): Promise<void> {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    try {
      const msg = await post(path, { text });
      input.value = "";
      add([msg]);
    } catch (err) {
      toast(errorText(err), "error");
    }
  }

  function render(): void {
    input.setAttribute("placeholder", t("chat.placeholder"));
    input.setAttribute("aria-label", t("chat.placeholder"));
    mount(el,
      h("h2", { id: `${id}-title` }, t(table ? "chat.table" : "chat.lobby")),
      log,
      unavailable && !lines.length ? h("p", { class: "empty" }, t("chat.unavailable")) : null,
      h("form", { class: "chat-form", onsubmit: send }, input,
        h("button", { type: "submit", class: "btn small" }, t("chat.send"))));
    paint();
  }

  const off = socket.on("chat", (f) => { if (f.channel === channel) add([f]); });
  poll();
  const timer = window.setInterval(poll, 4000);
  function unread(open: boolean): number {
    if (open || shown()) unseen = 0;
    return unseen;
  }
  return { el, render, unread, destroy() { off(); window.clearInterval(timer); } };
}
