// Shared widgets: toasts, modal dialogs, small form fields.
import { h, type Child } from "./dom";
import { t } from "./i18n";

export interface ToastAction {
  label: string;
  cls: string; // the button's class (also what tests find it by)
  run: () => void;
}

/** A short message; with actions (Accept / Decline) it stays longer and goes on a click. */
export function toast(text: string, kind: "info" | "error" | "ok" = "info", actions: ToastAction[] = []): void {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", class: "toasts", role: "status", "aria-live": "polite" });
    document.body.appendChild(box);
  }
  const item = h("div", { class: `toast ${kind}` }, h("span", null, text),
    actions.length ? h("span", { class: "toast-actions" }, ...actions.map((a) =>
      h("button", { type: "button", class: `btn small ${a.cls}`, onclick: () => { item.remove(); a.run(); } }, a.label))) : null);
  box.appendChild(item);
  window.setTimeout(() => item.remove(), actions.length ? 20000 : 4500);
}

export interface DialogHandle {
  close(): void;
  el: HTMLElement;
}

/** A modal dialog; Escape, the close button or a tap outside dismiss it. A `sheet` rises
 * from the bottom edge on a phone, within a thumb's reach. */
export function dialog(title: string, body: Child, opts: { wide?: boolean; sheet?: boolean; onClose?: () => void } = {}): DialogHandle {
  const previous = document.activeElement as HTMLElement | null;
  const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
  const close = () => {
    overlay.remove();
    document.removeEventListener("keydown", onKey, true);
    opts.onClose?.();
    previous?.focus?.();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      close();
    }
  };
  const panel = h(
    "div",
    { class: `dialog ${opts.wide ? "wide" : ""}`, role: "dialog", "aria-modal": "true", "aria-labelledby": titleId },
    h("header", { class: "dialog-head" },
      h("h2", { id: titleId }, title),
      h("button", { type: "button", class: "icon-btn", "aria-label": t("common.close"), onclick: close }, "✕")),
    h("div", { class: "dialog-body" }, body),
  );
  const overlay = h("div", { class: `overlay ${opts.sheet ? "sheet" : ""}`, onclick: (e: MouseEvent) => { if (e.target === overlay) close(); } }, panel);
  document.body.appendChild(overlay);
  document.addEventListener("keydown", onKey, true);
  const first = panel.querySelector<HTMLElement>("input, select, textarea, .dialog-body button");
  (first ?? panel.querySelector<HTMLElement>("button"))?.focus();
  return { close, el: panel };
}

/** The app's own yes/no question (the browser's confirm() box looks foreign and blocks). */
export function confirmDialog(title: string, text: string, okLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const ok = h("button", { type: "button", class: "btn danger", id: "confirm-ok", onclick: () => { answer = true; dlg.close(); } }, okLabel);
    const no = h("button", { type: "button", class: "btn", id: "confirm-cancel", onclick: () => dlg.close() }, t("common.cancel"));
    const dlg = dialog(title, [h("p", null, text), h("div", { class: "row end" }, no, ok)], { onClose: () => resolve(answer) });
    no.focus();
  });
}

export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 8)}`;
  control.id = id;
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("small", { class: "hint" }, hint) : null);
}

export function checkbox(label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  const id = input.id || `c-${Math.random().toString(36).slice(2, 8)}`;
  input.id = id;
  return h("div", { class: "field check" },
    input,
    h("label", { for: id }, label),
    hint ? h("small", { class: "hint" }, hint) : null);
}

export function spinner(): HTMLElement {
  return h("div", { class: "spinner", role: "progressbar", "aria-label": t("common.loading") });
}

export function busy<T extends unknown[]>(btn: HTMLButtonElement, fn: (...a: T) => Promise<void>) {
  return async (...args: T) => {
    if (btn.disabled) return;
    btn.disabled = true;
    try {
      await fn(...args);
    } finally {
      btn.disabled = false;
    }
  };
}

export function coinIcon(size = ""): HTMLElement {
  return h("span", { class: `ic coin ${size}`, "aria-hidden": "true" });
}

export function gemIcon(size = ""): HTMLElement {
  return h("span", { class: `ic gem ${size}`, "aria-hidden": "true" });
}

/** A cosmetic's drawing (an SVG file of frontend/public/cosmetics). */
export const cosmeticUrl = (sku: string): string => `/cosmetics/${sku}.svg`;

/** A player's equipped avatar (the default drawing when none is equipped): the same
 *  SVG the table draws at their seat, never an emoji (no emoji font needed). */
export function avatarImg(sku: string | null | undefined, size: "" | "small" | "big" = ""): HTMLElement {
  const avatar = sku && sku.startsWith("avatar_") ? sku : "avatar_default";
  const px = size === "big" ? 84 : size === "small" ? 30 : 44;
  return h("span", { class: `avatar ${size}`, "aria-hidden": "true", "data-avatar": avatar },
    h("img", { src: cosmeticUrl(avatar), alt: "", width: px, height: px, decoding: "async" }));
}
