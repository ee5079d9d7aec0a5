// Words the server stores in a neutral form and the client says in the reader's language:
// guest names ("Invitado1234" is stored; "Guest 1234" is shown in English), server-made
// table names (quick play, challenges), and the browser's own form-validation bubbles
// (which would otherwise speak the browser's language, not the page's).
import { guestName, t, type Key } from "./i18n";

/** A player's name as shown: a guest's number in the reader's language (i18n.ts; message
 * parameters get the same). */
export function playerName(name: string): string {
  return guestName(name);
}

/** The names the server makes (app/social/i18n.py), each also a key of our dictionaries. */
const SERVER_TITLES = new Set(["table.quick", "table.challenge"]);

/** A table's name as shown: one the server made (name_key) is worded here, so it follows
 * a language change at once; a name a host typed is shown as typed. */
export function tableTitle(x: { name?: string; name_key?: string | null; name_args?: Record<string, string> }): string {
  if (x.name_key && SERVER_TITLES.has(x.name_key)) {
    return t(x.name_key as Key, { ...x.name_args, name: playerName(x.name_args?.name ?? "") });
  }
  return x.name ?? "";
}

/** The message for a form field the browser refuses, in our language. */
export function validityText(el: HTMLInputElement): string {
  const v = el.validity;
  if (v.valueMissing) return t("form.required");
  if (v.tooShort) return t("form.tooShort", { n: el.minLength });
  if (v.tooLong) return t("form.tooLong", { n: el.maxLength });
  if (v.rangeUnderflow) return t("form.min", { n: Number(el.min) });
  if (v.rangeOverflow) return t("form.max", { n: Number(el.max) });
  return t("form.invalid");
}

/** Every form field's validation bubble worded by us (once, for the whole page). */
export function localValidity(doc: Document = document): void {
  doc.addEventListener("invalid", (e) => {
    const el = e.target;
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) return;
    el.setCustomValidity(""); // measure the field's own state, not our last message
    if (!el.validity.valid) el.setCustomValidity(validityText(el as HTMLInputElement));
  }, true);
  // A custom message sticks until cleared: clear it as soon as the field changes.
  doc.addEventListener("input", (e) => {
    const el = e.target as HTMLInputElement;
    if (typeof el.setCustomValidity === "function") el.setCustomValidity("");
  }, true);
}
