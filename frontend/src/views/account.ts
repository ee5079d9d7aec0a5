// Claiming a guest account: a username and a password keep the guest's coins and games.
import { post, errorText } from "../api";
import { h } from "../dom";
import { t } from "../i18n";
import { dialog, field } from "../ui";

export function claimDialog(done: (me: any) => void): void {
  const user = h("input", { name: "username", autocomplete: "username", required: true, minlength: 3, maxlength: 20 }) as HTMLInputElement;
  const pass = h("input", { name: "password", type: "password", autocomplete: "new-password", required: true, minlength: 8 }) as HTMLInputElement;
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", {
    class: "form",
    onsubmit: async (e: Event) => {
      e.preventDefault();
      error.textContent = "";
      try {
        const me = await post("/api/auth/claim", { username: user.value.trim(), password: pass.value });
        dlg.close();
        done(me);
      } catch (err) {
        error.textContent = errorText(err);
      }
    },
  },
  h("p", null, t("account.claimIntro")),
  field(t("account.username"), user, t("account.usernameHint")),
  field(t("account.password"), pass, t("account.passwordHint")),
  error,
  h("button", { type: "submit", class: "btn primary" }, t("account.claim")));
  const dlg = dialog(t("account.claimTitle"), form);
}
