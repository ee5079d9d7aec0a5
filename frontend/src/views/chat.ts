// Lobby chat (table === null) and table chat: history by REST, new lines by the socket's
// "chat" frames when the server relays them, and a short poll as a fallback.
import { get, post, errorText } from "../api";
import { h, mount, raw } from "../dom";
import { t } from "../i18n";
import { socket } from "../socket";
import { toast } from "../ui";

export interface ChatPanel {
  el: HTMLElement;
  render(): void;
  destroy(): void;
}

export function chatPanel(table: string | null, opts: { compact?: boolean } = {}): ChatPanel {
  const channel = table ? `table:${table}` : "lobby";
  const path = table ? `/api/chat/tables/${table}` : "/api/chat/lobby";
  const id = table ? "table-chat" : "lobby-chat";
  let lines: any[] = [];
  let lastId = 0;
  let unavailable = false;
  const el = h("section", { class: `panel chat ${opts.compact ? "compact" : ""}`, "aria-labelledby": `${id}-title` });
  const log = h("ol", { class: "chat-log", "aria-live": "polite", id: `${id}-log` });
  const input = h("input", { id: `${id}-input`, maxlength: 300, autocomplete: "off" }) as HTMLInputElement;

  function add(items: any[]): void {
    let grew = false;
    for (const m of items) {
      if (m.id <= lastId && lines.some((x) => x.id === m.id)) continue;
      lines.push(m);
      lastId = Math.max(lastId, m.id);
      grew = true;
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
  return { el, render, destroy() { off(); window.clearInterval(timer); } };
}
