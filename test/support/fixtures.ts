/**
 * Records the HTTP tests need, made through the same service functions the routes use
 * (sessions come from sign-in, keys from POST /v1/keys).
 */
import type { Context } from "../../src/context.ts";
import { createAccount } from "../../src/domains/accounts/service.ts";
import { issueSession } from "../../src/domains/auth/sessions.ts";
import { mintKey, revokeKey } from "../../src/domains/keys/service.ts";

/** An account and a live session for it (as sign-in would make them). */
export function accountWithSession(ctx: Context) {
  const account = createAccount(ctx);
  const session = issueSession(ctx, { accountId: account.id, method: "operator" });
  return { account, session };
}

/** An API key of the account, minted as POST /v1/keys would (optionally already revoked). */
export function apiKeyFor(ctx: Context, accountId: string, opts: { expiresAt?: number; revoked?: boolean; scopes?: string[]; monthlyCap?: number } = {}) {
  const { key, view } = mintKey(ctx, { accountId, expiresAt: opts.expiresAt ?? null, scopes: opts.scopes, monthlyCap: opts.monthlyCap ?? null });
  if (opts.revoked) revokeKey(ctx, accountId, view.id);
  return { id: view.id, token: key };
}
