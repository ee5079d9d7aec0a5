// Tiny render helpers: h() builds elements, mount() swaps a container's children.
import { num } from "./i18n";
import { playerName } from "./words";

export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (ev: any) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2).toLowerCase(), value as Handler);
      } else if (key === "class") {
        el.className = String(value);
      } else if (key === "value" && "value" in el) {
        (el as HTMLInputElement).value = String(value);
      } else if (key === "checked" || key === "disabled" || key === "selected") {
        (el as any)[key] = Boolean(value);
        if (value) el.setAttribute(key, "");
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function mount(container: HTMLElement, ...children: Child[]): void {
  container.replaceChildren();
  append(container, children);
}

/** Text that is data (names, chat, table names): exempt from translation checks. A
 * guest's stored name ("Invitado1234") is worded in the reader's language. */
export function raw(text: string, tag = "span", cls = ""): HTMLElement {
  return h(tag, { "data-raw": "", class: cls || null }, playerName(text));
}

export function fmt(n: number): string {
  // Written as the chosen language writes numbers (50.000, 50,000, 50 000).
  return num(Math.round(n));
}

/** Keep focus on the element with the same id across a re-render when possible. */
export function keepFocus(render: () => void): void {
  const active = document.activeElement as HTMLElement | null;
  const id = active?.id;
  const key = active?.getAttribute("data-key");
  render();
  let next: HTMLElement | null = null;
  if (id) next = document.getElementById(id);
  else if (key) next = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (next && next !== active) next.focus({ preventScroll: true });
}
