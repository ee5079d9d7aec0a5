// Answering an invitation or a challenge, from the lobby's list or from its toast.
import { errorText, post } from "./api";
import { app, changed, type Invite } from "./state";
import { toast } from "./ui";

export async function answerInvite(invite: Invite, yes: boolean): Promise<void> {
  app.invites = app.invites.filter((i) => i.table.id !== invite.table.id);
  changed();
  const id = invite.table.id;
  try {
    if (invite.kind === "challenge") {
      await post(`/api/challenges/${id}/${yes ? "accept" : "decline"}`);
    } else {
      await post(yes ? `/api/tables/${id}/sit` : `/api/tables/${id}/invitation/decline`, {});
    }
    if (yes) location.hash = `#/table/${id}`;
  } catch (e) {
    toast(errorText(e), "error");
  }
}
