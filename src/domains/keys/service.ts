/**
 * API keys: minting (by a person, by a parent key, for a mandate or a ghost), listing,
 * revoking a whole delegated subtree, rotating with a grace window, and unfreezing a key the
 * circuit breaker froze. Spending under the keys' controls is the meter's (core/meter.ts).
 */
import type { Actor } from "../../core/audit.ts";
import { ApiError, conflict, forbidden, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { monthOf } from "../../core/meter.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { PrivacyTier } from "../inference/index.ts";
import { newSecret, secretPrefix, sha256Hex } from "../../core/secrets.ts";
import { assertApiKeyAllowed } from "../billing/index.ts";
import type { Context } from "../../context.ts";
import { API_KEY_PREFIX } from "./principal.ts";
import { hasScope, missingScope, scopesWithin } from "./scopes.ts";
import { getKeyRow, type KeyKind, type KeyRow, keyView, type KeyView, statusOf, subtreeIds } from "./store.ts";

export interface MintInput {
  accountId: string;
  kind?: KeyKind;
  parentId?: string | null;
  name?: string | null;
  scopes?: string[];
  monthlyCap?: MicroUsd | null;
  totalCap?: MicroUsd | null;
  breakerPerMinute?: MicroUsd | null;
  notBefore?: number | null;
  expiresAt?: number | null;
  allowedModels?: string[] | null;
  allowedServices?: string[] | null;
  /** The privacy tier inference calls with this key ask for unless they say otherwise (svc_privacy_tier); null: "standard". */
  privacyTier?: PrivacyTier | null;
}

export interface MintedKey {
  /** The secret, shown once. */
  key: string;
  view: KeyView;
}

const json = (v: string[] | null | undefined) => (v == null ? null : JSON.stringify(v));

/** Writes the key (sha256 only) and its key_created event in one transaction. Rules are the caller's. */
export function mintKey(ctx: Context, input: MintInput): MintedKey {
  const token = newSecret(API_KEY_PREFIX);
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    // A fresh key from a person (no kind given: POST /v1/keys, svc keys mint) counts against the plan's api_keys limit; rotation names its kind.
    if (input.kind === undefined) assertApiKeyAllowed(ctx, input.accountId);
    const parent = input.parentId ? getKeyRow(ctx, input.parentId) : null;
    const row = ctx.db
      .query<KeyRow, (string | number | null)[]>(
        `INSERT INTO api_keys (id, account_id, token_sha256, prefix, name, kind, parent_id, depth, scopes, monthly_cap_micro_usd, total_cap_micro_usd,
                               breaker_micro_usd_per_minute, not_before, expires_at, allowed_models, allowed_services, privacy_tier, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId("key"),
        input.accountId,
        sha256Hex(token),
        secretPrefix(token),
        input.name ?? null,
        input.kind ?? (parent ? "delegated" : "standard"),
        parent?.id ?? null,
        parent ? parent.depth + 1 : 0,
        JSON.stringify(input.scopes ?? ["*"]),
        input.monthlyCap ?? null,
        input.totalCap ?? null,
        input.breakerPerMinute ?? null,
        input.notBefore ?? null,
        input.expiresAt ?? null,
        json(input.allowedModels),
        json(input.allowedServices),
        input.privacyTier ?? null,
        now,
      )!;
    ctx.outbox.emit("key_created", input.accountId, { key_id: row.id, prefix: row.prefix, kind: row.kind, parent_id: row.parent_id, scopes: JSON.parse(row.scopes) });
    return { key: token, view: keyView(ctx, row) };
  });
}

/** The account's keys, newest first; revoked ones only when asked. */
export function listKeys(ctx: Context, accountId: string, includeRevoked = false): KeyView[] {
  return ctx.db
    .query<KeyRow, [string, number]>("SELECT * FROM api_keys WHERE account_id = ? AND (revoked_at IS NULL OR ?) ORDER BY created_at DESC, rowid DESC")
    .all(accountId, includeRevoked ? 1 : 0)
    .map((r) => keyView(ctx, r));
}

/** Another account's key answers the same 404 as an unknown one. */
export function ownKey(ctx: Context, accountId: string, keyId: string): KeyRow {
  const row = getKeyRow(ctx, keyId);
  if (!row || row.account_id !== accountId) throw notFound("API key");
  return row;
}

/** Revokes the key and every key delegated below it; key_revoked per key, in the same transaction. */
export function revokeKey(ctx: Context, accountId: string, keyId: string, reason = "revoked"): string[] {
  return ctx.tx.run(() => {
    const root = ownKey(ctx, accountId, keyId);
    if (root.revoked_at !== null) return [];
    const now = ctx.clock.now();
    const revoked: string[] = [];
    for (const id of subtreeIds(ctx, root.id)) {
      if (ctx.db.query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, id).changes === 0) continue;
      revoked.push(id);
      ctx.outbox.emit("key_revoked", accountId, { key_id: id, reason, ...(id === root.id ? {} : { cascade_from: root.id }) });
    }
    return revoked;
  });
}

/**
 * A replacement with the same scopes, caps, breaker, constraints, expiry and place in the tree;
 * the old key's children move under it, its spend moves with it, and the old secret keeps
 * working, as the replacement, until the grace window ends.
 */
export function rotateKey(ctx: Context, accountId: string, keyId: string): MintedKey {
  return ctx.tx.run(() => {
    const old = ownKey(ctx, accountId, keyId);
    const status = statusOf(old, ctx.clock.now());
    if (status === "revoked" || status === "rotated" || status === "expired") throw conflict("key_not_rotatable", `a ${status} key cannot be rotated`);
    const minted = mintKey(ctx, {
      accountId,
      kind: old.kind,
      parentId: old.parent_id,
      name: old.name,
      scopes: JSON.parse(old.scopes) as string[],
      monthlyCap: old.monthly_cap_micro_usd,
      totalCap: old.total_cap_micro_usd,
      breakerPerMinute: old.breaker_micro_usd_per_minute,
      notBefore: old.not_before,
      expiresAt: old.expires_at,
      allowedModels: old.allowed_models ? (JSON.parse(old.allowed_models) as string[]) : null,
      allowedServices: old.allowed_services ? (JSON.parse(old.allowed_services) as string[]) : null,
      privacyTier: old.privacy_tier,
    });
    const next = minted.view.id;
    const now = ctx.clock.now();
    ctx.db.query("UPDATE api_keys SET parent_id = ? WHERE parent_id = ?").run(next, old.id);
    ctx.db.query("UPDATE api_keys SET frozen_at = ?, frozen_reason = ?, spent_carried_micro_usd = ? WHERE id = ?").run(old.frozen_at, old.frozen_reason, old.spent_carried_micro_usd, next);
    // Its spend, breaker window and the work in flight (which settles against the replacement) move with it.
    ctx.meter.transferKey(old.id, next);
    ctx.db.query("UPDATE api_keys SET rotated_to = ?, grace_until = ? WHERE id = ?").run(next, now + ctx.config.keys.rotation_grace_secs * 1000, old.id);
    return { key: minted.key, view: keyView(ctx, getKeyRow(ctx, next)!) };
  });
}

/** Moves a key's expiry (a ghost session extended). The caller enforces its own limits. */
export function setKeyExpiry(ctx: Context, keyId: string, expiresAt: number): void {
  ctx.tx.join(() => ctx.db.query("UPDATE api_keys SET expires_at = ? WHERE id = ?").run(expiresAt, keyId));
}

/**
 * Freezes a key by hand (its owner stops its spending without revoking it; the subtree under
 * it is refused with it, as for a breaker freeze). Idempotent: an already frozen key keeps its
 * first reason. Lifted by unfreezeKey.
 */
export function freezeKey(ctx: Context, accountId: string, keyId: string, reason: string | null): KeyView {
  return ctx.tx.run(() => {
    const row = ownKey(ctx, accountId, keyId);
    if (row.revoked_at !== null) throw conflict("key_revoked", "a revoked key cannot be frozen");
    ctx.db.query("UPDATE api_keys SET frozen_at = ?, frozen_reason = ? WHERE id = ? AND frozen_at IS NULL").run(ctx.clock.now(), reason ?? "frozen by the account owner", row.id);
    return keyView(ctx, getKeyRow(ctx, row.id)!);
  });
}

/** Lifts a freeze (the breaker's or the owner's); the breaker's window starts empty again. */
export function unfreezeKey(ctx: Context, accountId: string, keyId: string): KeyView {
  return ctx.tx.run(() => {
    const row = ownKey(ctx, accountId, keyId);
    if (row.revoked_at !== null) throw conflict("key_revoked", "a revoked key cannot be unfrozen");
    ctx.db.query("UPDATE api_keys SET frozen_at = NULL, frozen_reason = NULL WHERE id = ?").run(row.id);
    ctx.meter.resetBreaker(row.id);
    return keyView(ctx, getKeyRow(ctx, row.id)!);
  });
}

/**
 * Sets (or, with null, lifts) a key's monthly cap for its owner's account: the meter checks it
 * from the next reservation on, against the key's subtree spend this UTC month. Refused for a
 * key that can no longer spend (revoked, or replaced by rotation). Answers the previous cap
 * with the key, so the caller can record what it changed.
 */
export function setKeyMonthlyCap(ctx: Context, accountId: string, keyId: string, cap: MicroUsd | null): { previous: MicroUsd | null; key: KeyView } {
  if (cap !== null && (!Number.isSafeInteger(cap) || cap < 0)) throw invalidField("monthly_cap_micro_usd", "must be a whole number of micro-USD, at least 0");
  return ctx.tx.run(() => {
    const row = ownKey(ctx, accountId, keyId);
    const status = statusOf(row, ctx.clock.now());
    if (status === "revoked" || status === "rotated") throw conflict(`key_${status}`, `a ${status} key's cap cannot be changed`);
    ctx.db.query("UPDATE api_keys SET monthly_cap_micro_usd = ? WHERE id = ?").run(cap, row.id);
    return { previous: row.monthly_cap_micro_usd, key: keyView(ctx, getKeyRow(ctx, row.id)!) };
  });
}

export interface DelegateInput {
  name?: string | null;
  scopes?: string[];
  monthlyCap?: MicroUsd | null;
  expiresAt?: number | null;
  allowedModels?: string[] | null;
  allowedServices?: string[] | null;
  /**
   * The account's owner delegates (a session, for a hosted agent's key): the parent needs no
   * keys:delegate scope, every other bound holds.
   */
  byOwner?: boolean;
}

/**
 * A child of the calling key, never more than its parent: scopes within the parent's, a monthly
 * cap no larger than what the parent has left this month, an expiry no later than the parent's,
 * allowed models/services within the parent's, and at most keys.max_delegation_depth levels down.
 */
export function delegateKey(ctx: Context, parentId: string, input: DelegateInput): MintedKey {
  return ctx.tx.run(() => {
    const parent = getKeyRow(ctx, parentId);
    if (!parent) throw notFound("API key");
    const now = ctx.clock.now();
    const scopes = JSON.parse(parent.scopes) as string[];
    if (!input.byOwner && !hasScope(scopes, "keys:delegate")) throw missingScope("keys:delegate");
    if (statusOf(parent, now) !== "active") throw forbidden("key_not_active", `a ${statusOf(parent, now)} key cannot delegate`);
    if (parent.depth + 1 > ctx.config.keys.max_delegation_depth) {
      throw forbidden("delegation_too_deep", `keys may be delegated at most ${ctx.config.keys.max_delegation_depth} levels deep`);
    }
    const childScopes = input.scopes ?? scopes;
    if (!scopesWithin(childScopes, scopes)) throw invalidField("scopes", `must be within the parent key's scopes (${scopes.join(", ")})`);

    let cap = input.monthlyCap ?? null;
    if (parent.monthly_cap_micro_usd !== null) {
      const spend = ctx.meter.monthSpend(parent.id, monthOf(now));
      const remaining = Math.max(0, parent.monthly_cap_micro_usd - spend.spent - spend.held);
      if (cap !== null && cap > remaining) throw invalidField("monthly_cap_micro_usd", `must not exceed what the parent key has left this month (${remaining})`);
      cap ??= remaining;
    }
    let expiresAt = input.expiresAt ?? null;
    if (parent.expires_at !== null) {
      if (expiresAt !== null && expiresAt > parent.expires_at) throw invalidField("expires_at", "must not be later than the parent key's expiry");
      expiresAt ??= parent.expires_at;
    }
    const within = (field: string, child: string[] | null | undefined, own: string | null): string[] | null => {
      const allowed = own ? (JSON.parse(own) as string[]) : null;
      if (child == null) return allowed;
      if (allowed && !child.every((c) => allowed.includes(c))) throw invalidField(field, `must be within the parent key's list (${allowed.join(", ")})`);
      return child;
    };
    return mintKey(ctx, {
      accountId: parent.account_id,
      kind: "delegated",
      parentId: parent.id,
      name: input.name ?? null,
      scopes: childScopes,
      monthlyCap: cap,
      totalCap: null,
      breakerPerMinute: parent.breaker_micro_usd_per_minute,
      notBefore: parent.not_before,
      expiresAt,
      allowedModels: within("allowed_models", input.allowedModels, parent.allowed_models),
      allowedServices: within("allowed_services", input.allowedServices, parent.allowed_services),
      // A child asks for what its parent asks for by default (svc_privacy_tier still overrides per call).
      privacyTier: parent.privacy_tier,
    });
  });
}

/** Used by operator tooling to say who did it. */
export function auditKey(ctx: Context, actor: Actor, action: string, keyId: string, detail: Record<string, unknown> = {}): void {
  ctx.audit.record(actor, action, keyId, detail);
}

export const keyNotFound = () => new ApiError(404, "not_found", "API key not found");
