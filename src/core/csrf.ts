/**
 * CSRF tokens, one mechanism for every form of them (the session cookie, the console's operator
 * cookie, the OAuth consent form): an HMAC of what the token is bound to, under a key derived
 * for its purpose, compared in constant time. Reads (GET, HEAD, OPTIONS) change nothing and
 * need none.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { forbidden } from "./errors.ts";

export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isSafeMethod = (method: string): boolean => SAFE_METHODS.has(method.toUpperCase());

export const csrfToken = (key: Uint8Array, boundTo: string): string => createHmac("sha256", key).update(boundTo).digest("base64url");

/** Throws 403 csrf_refused with `message` unless `presented` is `expected`. */
export function requireCsrfToken(expected: string, presented: string | undefined, message: string): void {
  const want = Buffer.from(expected);
  const given = Buffer.from(presented ?? "");
  if (given.length !== want.length || !timingSafeEqual(given, want)) throw forbidden("csrf_refused", message);
}
