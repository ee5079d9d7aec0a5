// What the whole app shares: who I am, my wallet, pending invitations, unread count.
import { get } from "./api";
import { fmt } from "./dom";
import { tk } from "./i18n";

export interface Me {
  id: number;
  username: string | null;
  nickname: string;
  is_guest: boolean;
}

export interface Invite {
  kind: "invitation" | "challenge";
  table: any; // the lobby summary of the table
  from: { id: number; name: string };
}

// max_bet: the largest bet a guest or new account may sit at (null: no cap); held:
// winnings held for review, neither spendable nor giftable.
export type Wallet = {
  coins: number; credits: number; next_bonus_at: string | null; v?: number;
  max_bet?: number | null; held?: number;
};

export const app = {
  me: null as Me | null,
  wallet: null as Wallet | null,
  unread: 0,
  invites: [] as Invite[],
  equipped: {} as Record<string, string>,
};

/** Take a wallet from a push or a reply unless an older one: replies and pushes of
 * concurrent changes may cross on the way, and `v` only grows. */
export function setWallet(w: Partial<Wallet> & { coins: number; credits: number }): void {
  const cur = app.wallet;
  if (cur && typeof w.v === "number" && typeof cur.v === "number" && w.v < cur.v) return;
  app.wallet = { next_bonus_at: null, ...(cur ?? {}), ...w };
}

const listeners = new Set<() => void>();

export function changed(): void {
  listeners.forEach((fn) => fn());
}

export function onChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export async function refreshWallet(): Promise<void> {
  try {
    setWallet(await get("/api/wallet"));
    changed();
  } catch {
    /* the economy may be unavailable: the header just shows no wallet */
  }
}

export async function refreshUnread(): Promise<void> {
  try {
    const data = await get("/api/notifications?limit=1");
    app.unread = data.unread;
    changed();
  } catch {
    /* ignore */
  }
}

export async function refreshEquipped(): Promise<void> {
  try {
    const data = await get("/api/me/things");
    app.equipped = data.equipped ?? {};
    applyLook();
    changed();
  } catch {
    /* ignore */
  }
}

// Equipped cosmetics change the look: card backs and the table felt.
export function applyLook(): void {
  const root = document.documentElement;
  root.dataset.back = app.equipped.card_back ?? "";
  root.dataset.felt = app.equipped.felt ?? "";
}

/** A name's initial, where a drawing would not fit (the score sheet's small badges).
 *  Avatars themselves are SVG drawings: ui.ts avatarImg. */
export function avatarFor(_equipped: Record<string, string> | undefined, name: string): string {
  return (name.trim()[0] ?? "?").toUpperCase();
}

export function notifParams(p: any): Record<string, string> {
  return {
    name: p.from_nickname ?? p.by_nickname ?? p.nickname ?? "",
    item: p.sku ? tk(`item.${p.sku}`, "item.unknown") : `${fmt(p.amount ?? 0)} ${tk(`wallet.${p.currency ?? "coins"}`)}`,
    level: String(p.level ?? ""),
  };
}

