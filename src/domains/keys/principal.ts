/**
 * API keys as a credential: resolving a presented sk-svc_… key (by its sha256) to the account
 * and key it stands for, refusing revoked, expired and suspended ones.
 */
import { accountSuspended, type Principal } from "../../core/auth.ts";
import { unauthorized } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { isSuspended } from "../accounts/service.ts";

export const API_KEY_PREFIX = "sk-svc";

export type ApiKeyPrincipal = Extract<Principal, { kind: "api_key" }>;

export function resolveApiKey(ctx: Context, tokenSha256: string): ApiKeyPrincipal {
  const row = ctx.db
    .query<{ id: string; account_id: string; expires_at: number | null; revoked_at: number | null }, [string]>(
      "SELECT id, account_id, expires_at, revoked_at FROM api_keys WHERE token_sha256 = ?",
    )
    .get(tokenSha256);
  if (!row) throw unauthorized("invalid_api_key", "the API key is not valid");
  if (row.revoked_at !== null) throw unauthorized("api_key_revoked", "the API key has been revoked");
  if (row.expires_at !== null && row.expires_at <= ctx.clock.now()) throw unauthorized("api_key_expired", "the API key has expired");
  if (isSuspended(ctx, row.account_id)) throw accountSuspended();
  return { kind: "api_key", accountId: row.account_id, keyId: row.id };
}
