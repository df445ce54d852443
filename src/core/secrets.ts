/**
 * Bearer secrets (sk-svc_…, sess_…, nk-svc_…, hook and view tokens): generated here, shown to
 * their owner once, and stored only as sha256 so a database leak yields no usable credential.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

export function sha256Hex(value: string | Uint8Array): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time comparison of two hex digests (e.g. a presented token's hash against the stored one). */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** The non-secret start of a secret, safe to list and log: "sk-svc_Ab3dEf". */
export function secretPrefix(secret: string, visible = 6): string {
  const cut = secret.indexOf("_");
  return secret.slice(0, cut + 1 + visible);
}
