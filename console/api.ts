/**
 * Calls to svc's HTTP API from the console: same origin, the svc_session cookie (HttpOnly: this
 * code never sees it), the session's CSRF token on writes, the operator's on admin writes. An
 * error answer becomes an ApiError carrying the API's own message, which the pages show as is.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

export interface ConsoleSession {
  account_id: string | null;
  csrf_token: string | null;
  operator: { csrf_token: string } | null;
  admin_configured: boolean;
  passkeys: boolean;
  public_url: string;
}

let tokens: { session: string | null; operator: string | null } = { session: null, operator: null };

export function setCsrf(session: string | null, operator: string | null): void {
  tokens = { session, operator };
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export async function call<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const res = await raw(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** The Response, for answers that are not JSON (CSV); throws ApiError on an error status. */
export async function raw(method: Method, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") {
    const csrf = path.startsWith("/v1/admin/") ? tokens.operator : tokens.session;
    if (csrf) headers["x-csrf-token"] = csrf;
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", "svc did not answer: check that it is running and reachable");
  }
  if (!res.ok) {
    const data = (await res.json().catch(() => null)) as { error?: { type?: string; message?: string; param?: string } } | null;
    const e = data?.error;
    throw new ApiError(res.status, e?.type ?? "http_error", e?.message ?? `svc answered HTTP ${res.status}`, e?.param);
  }
  return res;
}

export const get = <T>(path: string) => call<T>("GET", path);
export const post = <T>(path: string, body: unknown = {}) => call<T>("POST", path, body);
export const put = <T>(path: string, body: unknown) => call<T>("PUT", path, body);
export const del = <T>(path: string) => call<T>("DELETE", path);

export const query = (params: Record<string, string | number | undefined | null>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};
