// The front door: play as a guest at once, or sign in / register.
import { post, errorText } from "../api";
import { h, mount } from "../dom";
import { t } from "../i18n";
import { field } from "../ui";
import { cardFace } from "../cards";
import type { View } from "../view";

export function welcomeView(el: HTMLElement, onIn: () => void): View {
  let tab: "login" | "register" = "login";
  let error = "";
  let busy = false;

  async function guest(): Promise<void> {
    if (busy) return;
    busy = true;
    try {
      await post("/api/auth/guest");
      onIn();
    } catch (e) {
      error = errorText(e);
      render();
    } finally {
      busy = false;
    }
  }

  async function submit(e: Event): Promise<void> {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    try {
      await post(tab === "login" ? "/api/auth/login" : "/api/auth/register", {
        username: String(data.get("username") ?? "").trim(),
        password: String(data.get("password") ?? ""),
      });
      onIn();
    } catch (err) {
      error = errorText(err);
      render();
    }
  }

  function render(): void {
    const tabs = h("div", { class: "tabs", role: "tablist" },
      ...(["login", "register"] as const).map((name) =>
        h("button", {
          type: "button", role: "tab", id: `tab-${name}`, "aria-selected": String(tab === name),
          class: tab === name ? "tab active" : "tab",
          onclick: () => { tab = name; error = ""; render(); },
        }, t(name === "login" ? "welcome.login" : "welcome.register"))));
    mount(el,
      h("section", { class: "welcome" },
        h("div", { class: "hero" },
          h("div", { class: "hero-cards", "aria-hidden": "true" },
            cardFace("AH", "fan f1"), cardFace("KS", "fan f2"), cardFace("JK", "fan f3"), cardFace("7D", "fan f4")),
          h("h1", null, t("welcome.title")),
          h("p", { class: "lead" }, t("welcome.lead")),
          h("button", { type: "button", class: "btn primary huge", id: "play-guest", onclick: guest }, t("welcome.guest")),
          h("p", { class: "muted" }, t("welcome.guestHint"))),
        h("div", { class: "panel auth" },
          tabs,
          h("form", { class: "form", onsubmit: submit, role: "tabpanel", "aria-labelledby": `tab-${tab}` },
            field(t("account.username"), h("input", { name: "username", autocomplete: "username", required: true, maxlength: 20 })),
            field(t("account.password"), h("input", {
              name: "password", type: "password", required: true,
              autocomplete: tab === "login" ? "current-password" : "new-password",
              minlength: tab === "register" ? 8 : 1,
            }), tab === "register" ? t("account.passwordHint") : undefined),
            error ? h("p", { class: "error", role: "alert" }, error) : null,
            h("button", { type: "submit", class: "btn" }, t(tab === "login" ? "welcome.loginBtn" : "welcome.registerBtn"))))));
  }

  return { render };
}
