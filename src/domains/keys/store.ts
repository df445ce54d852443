/** API key rows and what the API shows of them (never the secret, which is only its sha256). */
import { isoTime } from "../../core/clock.ts";
import { monthOf } from "../../core/meter.ts";
import type { PrivacyTier } from "../inference/index.ts";
import type { Context } from "../../context.ts";

export type KeyKind = "standard" | "delegated" | "mandate" | "ghost";

export interface KeyRow {
  id: string;
  account_id: string;
  prefix: string;
  name: string | null;
  kind: KeyKind;
  parent_id: string | null;
  depth: number;
  scopes: string;
  monthly_cap_micro_usd: number | null;
  total_cap_micro_usd: number | null;
  /** Lifetime spend its months in key_spend do not hold (migration 0057); the lifetime spend itself is ctx.meter.lifetimeSpent. */
  spent_carried_micro_usd: number;
  breaker_micro_usd_per_minute: number | null;
  frozen_at: number | null;
  frozen_reason: string | null;
  allowed_models: string | null;
  allowed_services: string | null;
  privacy_tier: PrivacyTier | null;
  not_before: number | null;
  expires_at: number | null;
  revoked_at: number | null;
  rotated_to: string | null;
  grace_until: number | null;
  created_at: number;
}

export type KeyStatus = "active" | "frozen" | "expired" | "revoked" | "rotated";

export interface KeyView {
  id: string;
  prefix: string;
  name: string | null;
  kind: KeyKind;
  status: KeyStatus;
  parent_id: string | null;
  depth: number;
  scopes: string[];
  monthly_cap_micro_usd: number | null;
  total_cap_micro_usd: number | null;
  breaker_micro_usd_per_minute: number | null;
  /** This key and every key delegated below it, this UTC month. */
  spent_this_month_micro_usd: number;
  held_micro_usd: number;
  total_spent_micro_usd: number;
  allowed_models: string[] | null;
  allowed_services: string[] | null;
  /** The tier inference calls ask for by default (svc_privacy_tier overrides per call); null: "standard". */
  privacy_tier: PrivacyTier | null;
  not_before: string | null;
  expires_at: string | null;
  frozen_at: string | null;
  frozen_reason: string | null;
  revoked_at: string | null;
  rotated_to: string | null;
  grace_until: string | null;
  created_at: string;
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));
const list = (json: string | null) => (json === null ? null : (JSON.parse(json) as string[]));

export function statusOf(r: KeyRow, now: number): KeyStatus {
  if (r.revoked_at !== null) return "revoked";
  if (r.rotated_to !== null) return "rotated";
  if (r.expires_at !== null && r.expires_at <= now) return "expired";
  if (r.frozen_at !== null) return "frozen";
  return "active";
}

export function keyView(ctx: Context, r: KeyRow): KeyView {
  const now = ctx.clock.now();
  const spend = ctx.meter.monthSpend(r.id, monthOf(now));
  return {
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    kind: r.kind,
    status: statusOf(r, now),
    parent_id: r.parent_id,
    depth: r.depth,
    scopes: JSON.parse(r.scopes) as string[],
    monthly_cap_micro_usd: r.monthly_cap_micro_usd,
    total_cap_micro_usd: r.total_cap_micro_usd,
    breaker_micro_usd_per_minute: r.breaker_micro_usd_per_minute,
    spent_this_month_micro_usd: spend.spent,
    held_micro_usd: spend.held,
    total_spent_micro_usd: ctx.meter.lifetimeSpent(r.id),
    allowed_models: list(r.allowed_models),
    allowed_services: list(r.allowed_services),
    privacy_tier: r.privacy_tier,
    not_before: iso(r.not_before),
    expires_at: iso(r.expires_at),
    frozen_at: iso(r.frozen_at),
    frozen_reason: r.frozen_reason,
    revoked_at: iso(r.revoked_at),
    rotated_to: r.rotated_to,
    grace_until: iso(r.grace_until),
    created_at: isoTime(r.created_at),
  };
}

export function getKeyRow(ctx: Context, id: string): KeyRow | null {
  return ctx.db.query<KeyRow, [string]>("SELECT * FROM api_keys WHERE id = ?").get(id);
}

/** The account's keys among `ids`, oldest first (unknown ids and other accounts' keys left out). */
export function keyRowsOf(ctx: Context, accountId: string, ids: readonly string[]): KeyRow[] {
  if (!ids.length) return [];
  return ctx.db
    .query<KeyRow, [string, string]>("SELECT * FROM api_keys WHERE account_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id")
    .all(accountId, JSON.stringify(ids));
}

/** The key and every key delegated below it, at any depth. */
export function subtreeIds(ctx: Context, id: string): string[] {
  return ctx.db
    .query<{ id: string }, [string]>(
      "WITH RECURSIVE down(id) AS (SELECT ? UNION ALL SELECT k.id FROM api_keys k JOIN down ON k.parent_id = down.id) SELECT id FROM down",
    )
    .all(id)
    .map((r) => r.id);
}

/** The key a (possibly rotated) key id stands for now: its replacement, followed through rotations. */
export function keyInForce(ctx: Context, keyId: string): KeyRow {
  let key = getKeyRow(ctx, keyId)!;
  for (let i = 0; key.rotated_to !== null && i < 8; i++) key = getKeyRow(ctx, key.rotated_to)!;
  return key;
}

/**
 * Standard keys a person minted that can still be used: not revoked, not replaced by rotation,
 * not expired (what a plan's api_keys limit counts; billing/limits.ts).
 */
export function usableStandardKeyCount(ctx: Context, accountId: string): number {
  return ctx.db
    .query<{ n: number }, [string, number]>(
      `SELECT count(*) AS n FROM api_keys
       WHERE account_id = ? AND kind = 'standard' AND revoked_at IS NULL AND rotated_to IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .get(accountId, ctx.clock.now())!.n;
}

/**
 * How many keys the account has (every kind, revoked ones included) and how many of them are
 * credentials right now: not revoked, replaced, expired or frozen (statusOf's "active").
 */
export function keyCountsOf(ctx: Context, accountId: string): { total: number; active: number } {
  const r = ctx.db
    .query<{ total: number; active: number | null }, [number, string]>(
      `SELECT count(*) AS total,
              sum(revoked_at IS NULL AND rotated_to IS NULL AND (expires_at IS NULL OR expires_at > ?1) AND frozen_at IS NULL) AS active
       FROM api_keys WHERE account_id = ?2`,
    )
    .get(ctx.clock.now(), accountId)!;
  return { total: r.total, active: r.active ?? 0 };
}

/** The privacy tier a key asks for by default (null: none set). */
export function keyPrivacyTier(ctx: Context, keyId: string): PrivacyTier | null {
  return ctx.reads.get("keys.privacy_tier", keyId, () => ctx.db.query<{ privacy_tier: PrivacyTier | null }, [string]>("SELECT privacy_tier FROM api_keys WHERE id = ?").get(keyId)?.privacy_tier ?? null);
}
