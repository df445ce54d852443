/**
 * Inbound hooks (spec §4.1 POST /v1/agents/:id/hooks/:token, §5 rule 3): a secret URL that
 * queues a run of the agent with the request body as its input, answering 202 with the run id.
 *
 * - The token is shown once, in the URL POST …/hooks/rotate returns; svc keeps only its sha256.
 *   Rotating kills the old token at once; POST …/hooks/disable kills it without a new one.
 * - An unknown agent, a wrong, rotated or disabled token, a deleted or gated-off agent: one and
 *   the same 404, so the route tells nothing about which agents or hooks exist.
 * - Once an HMAC secret is set (POST …/hooks/secret, shown once; sealed at rest), a call must
 *   carry X-Svc-Timestamp (unix seconds, within 5 minutes of svc's clock) and X-Svc-Signature:
 *   sha256=<hex HMAC-SHA256 over "<timestamp>.<raw body>">. Anything else is 401, and so is a
 *   signature already accepted once (a replay inside the window).
 * - Bodies above agents.hook_max_body_bytes are refused 413; each token has its own rate limit
 *   (agents.hook_per_minute, hook_burst; 429 with Retry-After).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ApiError, notFound, payloadTooLarge, rateLimited } from "../../core/errors.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import { digestsEqual, newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { queueRun, type RunRow } from "./runs.ts";
import { type AgentView, agentRow, agentView, hookSecretAad, ownAgent, touch } from "./store.ts";

export const HOOK_TOKEN_PREFIX = "ahk";
export const HOOK_SECRET_PREFIX = "ahs";
/** How far X-Svc-Timestamp may be from svc's clock, either way. */
export const SIGNATURE_TOLERANCE_SECS = 300;

/**
 * In-memory state of the hook route: per-token rate buckets, and the signatures accepted in the
 * last tolerance window, so a captured signed request cannot be replayed inside it either (one
 * `svc serve` per database; a restart forgets them, and the timestamp bounds what it forgets).
 */
export class HookGuard {
  readonly limiter: RateLimiter;
  private readonly seen = new Map<string, number>();

  constructor(private readonly ctx: Context) {
    this.limiter = new RateLimiter(ctx.clock, { perMinute: ctx.config.agents.hook_per_minute, burst: ctx.config.agents.hook_burst });
  }

  /** Records a signature; false when it was already used inside the window. */
  firstUse(signature: string): boolean {
    const now = this.ctx.clock.now();
    if (this.seen.size > 100_000) for (const [sig, until] of this.seen) if (until <= now) this.seen.delete(sig);
    const until = this.seen.get(signature);
    if (until !== undefined && until > now) return false;
    this.seen.set(signature, now + 2 * SIGNATURE_TOLERANCE_SECS * 1000);
    return true;
  }
}

declare module "../../context.ts" {
  interface Context {
    /** The inbound hook route's rate buckets and replay memory (set by the agents module's wire). */
    agentHooks: HookGuard;
  }
}

export const hookUrl = (ctx: Context, agentId: string, token: string) => `${ctx.config.public_url}/v1/agents/${agentId}/hooks/${token}`;

/** A fresh token (the old one dies); its URL is shown this once. */
export function rotateHook(ctx: Context, accountId: string, id: string): { agent_id: string; url: string; signed: boolean } {
  const token = newSecret(HOOK_TOKEN_PREFIX);
  const row = ctx.tx.run(() => touch(ctx, ownAgent(ctx, accountId, id).id, "hook_token_sha256 = ?", [sha256Hex(token)]));
  return { agent_id: row.id, url: hookUrl(ctx, row.id, token), signed: row.hook_secret_sealed !== null };
}

export function disableHook(ctx: Context, accountId: string, id: string): AgentView {
  return agentView(ctx, ctx.tx.run(() => touch(ctx, ownAgent(ctx, accountId, id).id, "hook_token_sha256 = NULL", [])));
}

/** Sets or rotates the HMAC secret (shown this once), or removes it. */
export function setHookSecret(ctx: Context, accountId: string, id: string, remove: boolean): { agent_id: string; secret: string | null; signed: boolean } {
  const agent = ownAgent(ctx, accountId, id);
  if (remove) {
    ctx.tx.run(() => touch(ctx, agent.id, "hook_secret_sealed = NULL", []));
    return { agent_id: agent.id, secret: null, signed: false };
  }
  const secret = newSecret(HOOK_SECRET_PREFIX);
  ctx.tx.run(() => touch(ctx, agent.id, "hook_secret_sealed = ?", [ctx.sealer.seal(secret, hookSecretAad(agent.id))]));
  return { agent_id: agent.id, secret, signed: true };
}

const hookNotFound = () => notFound("hook");
const badSignature = (message: string) => new ApiError(401, "invalid_signature", message);

/** Checks the signature; answers it (lowercase hex) for the replay check. */
function checkSignature(secret: string, headers: Record<string, string | undefined>, raw: Uint8Array, nowMs: number): string {
  const stamp = headers["x-svc-timestamp"];
  const given = headers["x-svc-signature"];
  if (!stamp || !given) throw badSignature("this hook is signed: send X-Svc-Timestamp (unix seconds) and X-Svc-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">");
  if (!/^\d{1,12}$/.test(stamp)) throw badSignature("X-Svc-Timestamp must be unix seconds");
  if (Math.abs(nowMs / 1000 - Number(stamp)) > SIGNATURE_TOLERANCE_SECS) throw badSignature(`X-Svc-Timestamp is more than ${SIGNATURE_TOLERANCE_SECS} seconds from svc's clock`);
  const match = /^sha256=([0-9a-f]{64})$/i.exec(given.trim());
  if (!match) throw badSignature("X-Svc-Signature must be sha256=<64 hex digits>");
  const expected = createHmac("sha256", secret).update(`${stamp}.`).update(raw).digest();
  if (!timingSafeEqual(expected, Buffer.from(match[1]!, "hex"))) throw badSignature("X-Svc-Signature does not match the body and timestamp");
  return match[1]!.toLowerCase();
}

/** The public route: token (uniform 404), rate, size, signature, then a queued run. */
export function receiveHook(ctx: Context, agentId: string, token: string, raw: Uint8Array, headers: Record<string, string | undefined>): RunRow {
  const agent = agentRow(ctx, agentId);
  const digest = sha256Hex(token);
  if (!agent || agent.deleted_at !== null || agent.enabled !== 1 || agent.hook_token_sha256 === null || !digestsEqual(digest, agent.hook_token_sha256)) throw hookNotFound();
  const take = ctx.agentHooks.limiter.take(digest);
  if (!take.ok) throw rateLimited(take.retryAfterSecs, "too many calls of this hook; slow down");
  if (raw.byteLength > ctx.config.agents.hook_max_body_bytes) throw payloadTooLarge(ctx.config.agents.hook_max_body_bytes);
  if (agent.hook_secret_sealed !== null) {
    const signature = checkSignature(ctx.sealer.openText(agent.hook_secret_sealed, hookSecretAad(agent.id)), headers, raw, ctx.clock.now());
    if (!ctx.agentHooks.firstUse(signature)) throw badSignature("this signed request was already accepted once; sign each call with its own timestamp");
  }
  return queueRun(ctx, agent, "hook", new TextDecoder().decode(raw));
}
