/**
 * Idempotency-Key on POST /v1/sandboxes, POST /v1/sandboxes/sessions and session execs: the
 * first result for a key is kept per account for 24 hours and answered again to every repeat,
 * which is never run or billed again (docs/sandboxes.md).
 *
 * - The key is claimed (a pending row) in one transaction before anything is reserved, so two
 *   requests racing with one key cannot both run: the second gets 409
 *   idempotency_key_in_progress until the first finishes.
 * - A key is bound to the request it was first used with (route, session, body): another
 *   request with it is 422 idempotency_key_reused (the IETF Idempotency-Key draft's answer).
 * - Only results are kept: a request refused (402, 400, a sandbox that failed, nothing billed)
 *   frees its key, so the caller can fix the cause and retry with the same key.
 * - Results hold program output, which is user content: sealed with the master key, bound to
 *   the account and key. A recurring job forgets rows older than 24 hours.
 * - A pending row whose process died (a crash mid-run) is taken over once it is older than
 *   the longest a run can take.
 */
import { createHash } from "node:crypto";
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IdempotencyClaim {
  accountId: string;
  key: string;
}

export type IdempotencyStart = { replay: StoredResponse } | { claim: IdempotencyClaim } | null;

/** JSON with object keys sorted, so the same request hashes the same whatever its key order. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const aad = (accountId: string, key: string) => `sandbox-idempotency:${accountId}:${key}`;

interface Row {
  scope: string;
  request_sha256: string;
  state: "pending" | "done";
  response: string | null;
  created_at: number;
}

/** Reads the Idempotency-Key header (absent: null) and claims or replays it. */
export function startIdempotent(ctx: Context, accountId: string, header: string | undefined, scope: string, request: unknown): IdempotencyStart {
  if (header === undefined) return null;
  if (!KEY.test(header)) throw invalidField("Idempotency-Key", "must be 1-255 visible ASCII characters");
  const hash = createHash("sha256").update(`${scope}\n${stable(request)}`).digest("hex");
  const now = ctx.clock.now();
  const staleAfter = ctx.config.sandboxes.max_timeout_ms + 10 * 60_000;
  return ctx.tx.run((): IdempotencyStart => {
    const row = ctx.db
      .query<Row, [string, string]>("SELECT scope, request_sha256, state, response, created_at FROM sandbox_idempotency WHERE account_id = ? AND key = ?")
      .get(accountId, header);
    const claim = { accountId, key: header };
    if (row && row.created_at > now - IDEMPOTENCY_TTL_MS) {
      if (row.request_sha256 !== hash) {
        throw new ApiError(422, "idempotency_key_reused", `this Idempotency-Key was first used with another request (${row.scope}); use a new key for a new request`);
      }
      if (row.state === "done") return { replay: JSON.parse(ctx.sealer.openText(row.response!, aad(accountId, header))) as StoredResponse };
      if (row.created_at > now - staleAfter) {
        throw new ApiError(409, "idempotency_key_in_progress", "the first request with this Idempotency-Key is still running; retry when it has finished");
      }
    }
    ctx.db
      .query(
        `INSERT INTO sandbox_idempotency (account_id, key, scope, request_sha256, state, created_at) VALUES (?1, ?2, ?3, ?4, 'pending', ?5)
         ON CONFLICT (account_id, key) DO UPDATE SET scope = ?3, request_sha256 = ?4, state = 'pending', status = NULL, response = NULL, created_at = ?5`,
      )
      .run(accountId, header, scope, hash, now);
    return { claim };
  });
}

/** Keeps the result for the claimed key. */
export function completeIdempotent(ctx: Context, claim: IdempotencyClaim | null, stored: StoredResponse): void {
  if (!claim) return;
  const sealed = ctx.sealer.seal(JSON.stringify(stored), aad(claim.accountId, claim.key));
  ctx.db.query("UPDATE sandbox_idempotency SET state = 'done', status = ?, response = ? WHERE account_id = ? AND key = ?").run(stored.status, sealed, claim.accountId, claim.key);
}

/** The request produced no result (refused, or failed unbilled): the key is free again. */
export function abandonIdempotent(ctx: Context, claim: IdempotencyClaim | null): void {
  if (!claim) return;
  ctx.db.query("DELETE FROM sandbox_idempotency WHERE account_id = ? AND key = ? AND state = 'pending'").run(claim.accountId, claim.key);
}

/** Forgets keys older than 24 hours (a recurring job). */
export function pruneIdempotency(ctx: Context): number {
  return ctx.db.query("DELETE FROM sandbox_idempotency WHERE created_at < ?").run(ctx.clock.now() - IDEMPOTENCY_TTL_MS).changes;
}

/** The stored answer again, marked as a replay. */
export function replayResponse(stored: StoredResponse): Response {
  return new Response(JSON.stringify(stored.body), { status: stored.status, headers: { "content-type": "application/json", ...stored.headers, "idempotent-replayed": "true" } });
}
