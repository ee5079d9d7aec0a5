// REST calls. Every server error is {"error": {"code", "message"}}: the UI translates
// by code (i18n keys "err.<code>").
import { tk } from "./i18n";

export class ApiError extends Error {
  constructor(public code: string, message: string, public status: number) {
    super(message);
  }
}

export async function api<T = any>(
  method: string, path: string, body?: unknown, headers: Record<string, string> = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body !== undefined ? { "Content-Type": "application/json", ...headers } : headers,
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError("network", "network error", 0);
  }
  if (res.status === 204) return undefined as T;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = data?.error ?? {};
    throw new ApiError(err.code ?? "http_error", err.message ?? res.statusText, res.status);
  }
  return data as T;
}

export const get = <T = any>(path: string) => api<T>("GET", path);
export const post = <T = any>(path: string, body: unknown = {}, headers?: Record<string, string>) =>
  api<T>("POST", path, body, headers);
export const del = <T = any>(path: string) => api<T>("DELETE", path);

/** A one-off key so a retried purchase or gift is never charged twice. */
export function idem(): Record<string, string> {
  return { "Idempotency-Key": `k${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}` };
}

/** The player's words for an error code (falls back to a generic sentence). */
export function errorText(e: unknown): string {
  const code = e instanceof ApiError ? e.code : (e as any)?.code ?? "unknown";
  return tk(`err.${code}`, "err.unknown");
}
