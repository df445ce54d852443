/**
 * What kind of body each route takes, checked before the handler runs: a route whose schema is an
 * object refuses null, arrays and scalars (an optional object body would otherwise let them
 * through as "no body"), and a route that declares no body takes none, or an empty object
 * (what many clients send with a bare POST). A route that accepts any JSON says so with an
 * explicit non-object schema (t.Unknown()) and is left alone.
 */
import { ApiError } from "./errors.ts";

export type BodyKind = "object" | "none" | "any";

interface RouteWithBody {
  method: string;
  path: string;
  hooks?: { body?: unknown } | unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** method + " " + route template → the kind of body it takes. */
export function bodyKinds(routes: readonly RouteWithBody[]): Map<string, BodyKind> {
  const kinds = new Map<string, BodyKind>();
  for (const r of routes) {
    const schema = (r.hooks as { body?: { type?: unknown } } | undefined)?.body;
    kinds.set(`${r.method} ${r.path}`, schema === undefined ? "none" : schema?.type === "object" ? "object" : "any");
  }
  return kinds;
}

const describe = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" ? "a string" : `a ${typeof v}`);

/** 400 naming `body` when a parsed body does not fit the kind its route takes. */
export function checkBodyKind(kind: BodyKind | undefined, body: unknown): void {
  if (body === undefined || kind === undefined || kind === "any") return;
  if (kind === "object" && !isPlainObject(body)) {
    throw new ApiError(400, "invalid_request", `body: expected a JSON object, got ${describe(body)}`, { param: "body", errors: [{ param: "body", reason: `expected a JSON object, got ${describe(body)}` }] });
  }
  if (kind === "none" && !(isPlainObject(body) && Object.keys(body).length === 0)) {
    const reason = isPlainObject(body) ? `this route takes no body fields (got ${Object.keys(body).slice(0, 3).join(", ")})` : `this route takes no body (got ${describe(body)})`;
    throw new ApiError(400, "invalid_request", `body: ${reason}`, { param: "body", errors: [{ param: "body", reason }] });
  }
}
