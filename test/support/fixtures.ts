/**
 * Records the HTTP tests need before their own issues ship the routes that create them
 * (sessions come from sign-in, keys from POST /v1/keys). Inserted through the same tables the
 * guards read.
 */
import { newId } from "../../src/core/ids.ts";
import { newSecret, secretPrefix, sha256Hex } from "../../src/core/secrets.ts";
import type { Context } from "../../src/context.ts";
import { createAccount } from "../../src/domains/accounts/service.ts";
import { issueSession } from "../../src/domains/auth/sessions.ts";

/** An account and a live session for it (as sign-in would make them). */
export function accountWithSession(ctx: Context) {
  const account = createAccount(ctx);
  const session = issueSession(ctx, { accountId: account.id, method: "operator" });
  return { account, session };
}

export function apiKeyFor(ctx: Context, accountId: string, opts: { expiresAt?: number; revoked?: boolean } = {}) {
  const token = newSecret("sk-svc");
  const id = newId("key");
  ctx.db
    .query("INSERT INTO api_keys (id, account_id, token_sha256, prefix, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(id, accountId, sha256Hex(token), secretPrefix(token), ctx.clock.now(), opts.expiresAt ?? null, opts.revoked ? ctx.clock.now() : null);
  return { id, token };
}
