/**
 * API keys as a credential: resolving a presented sk-svc_… key (by its sha256) to the account
 * and key it stands for. A rotated key, inside its grace window, stands for its replacement
 * (so spend and caps carry over); after it, and when revoked or expired, it is refused. A
 * frozen key still authenticates (its owner can read its credit); the meter refuses its spending.
 */
import { accountSuspended, type Principal } from "../../core/auth.ts";
import { unauthorized } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { isSuspended } from "../accounts/index.ts";

export const API_KEY_PREFIX = "sk-svc";

export type ApiKeyPrincipal = Extract<Principal, { kind: "api_key" }>;

interface Row {
  id: string;
  account_id: string;
  scopes: string;
  expires_at: number | null;
  not_before: number | null;
  revoked_at: number | null;
  rotated_to: string | null;
  grace_until: number | null;
}

const MAX_ROTATIONS_FOLLOWED = 8;

const SELECT = "SELECT id, account_id, scopes, expires_at, not_before, revoked_at, rotated_to, grace_until FROM api_keys";

export function resolveApiKey(ctx: Context, tokenSha256: string): ApiKeyPrincipal {
  // From the read cache (core/read-cache.ts): every column read here is one the keys' trigger watches (migration 0053).
  const row = ctx.reads.get("keys.by_token", tokenSha256, () => ctx.db.query<Row, [string]>(`${SELECT} WHERE token_sha256 = ?`).get(tokenSha256), (r) => r !== null);
  if (!row) throw unauthorized("invalid_api_key", "the API key is not valid");
  return principalOf(ctx, row);
}

/**
 * The principal a key stands for, by its id, for work svc does on the key's behalf without its
 * secret (a hosted agent's run): refused exactly as presenting the key would be.
 */
export function principalOfKey(ctx: Context, keyId: string): ApiKeyPrincipal {
  const row = ctx.db.query<Row, [string]>(`${SELECT} WHERE id = ?`).get(keyId);
  if (!row) throw unauthorized("invalid_api_key", "the API key is not valid");
  return principalOf(ctx, row);
}

function principalOf(ctx: Context, first: Row): ApiKeyPrincipal {
  let row = first;
  const now = ctx.clock.now();
  for (let i = 0; row.rotated_to !== null; i++) {
    if (row.grace_until === null || row.grace_until <= now || i === MAX_ROTATIONS_FOLLOWED) {
      throw unauthorized("api_key_rotated", "the API key was rotated and its grace period is over; use the replacement");
    }
    const next = row.rotated_to;
    row = ctx.reads.get("keys.by_id", next, () => ctx.db.query<Row, [string]>(`${SELECT} WHERE id = ?`).get(next), (r) => r !== null)!;
  }
  if (row.revoked_at !== null) throw unauthorized("api_key_revoked", "the API key has been revoked");
  if (row.expires_at !== null && row.expires_at <= now) throw unauthorized("api_key_expired", "the API key has expired");
  // A mandate's key is not a credential before its validity window opens.
  if (row.not_before !== null && row.not_before > now) throw unauthorized("api_key_not_yet_valid", "the API key is not valid yet");
  if (isSuspended(ctx, row.account_id)) throw accountSuspended();
  return { kind: "api_key", accountId: row.account_id, keyId: row.id, scopes: JSON.parse(row.scopes) as string[] };
}
