/**
 * Mandates: a bounded spending mandate for an agent — a purpose, a total budget, scopes,
 * allowed models and services, a validity window — backed by an API key of kind "mandate"
 * that carries exactly those controls. The meter enforces them at reservation time like any
 * key's (lifetime cap = budget, allow-lists, not_before/expires_at), so this file only holds
 * the rules for granting, reading, revoking and proving a mandate (docs/mandates.md).
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MicroUsd } from "../../core/money.ts";
import { signStatement, type SignedStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { mintKey, revokeKey } from "../keys/index.ts";
import { keyInForce, type KeyRow } from "../keys/index.ts";
// Types only: models.ts reads this file's constants, so a value import would be a cycle.
import type { Mandate, ProofPayload } from "./models.ts";

const DAY_MS = 86_400_000;
/** A mandate is a standing grant, not a permanent one: it must end within about a year. */
export const MAX_VALIDITY_DAYS = 366;
/** A valid_from this far in the past is taken as "now" (client clocks drift); further back is refused. */
export const VALID_FROM_SKEW_MS = 5 * 60_000;
/** Spec §8: GET /v1/mandates returns at most 200. */
export const MANDATES_LIST_CAP = 200;
/** A rotation chain longer than this is a bug, not a mandate (keys/principal.ts follows 8). */

export interface MandateInput {
  name: string | null;
  purpose: string;
  budget: MicroUsd;
  monthlyCap: MicroUsd | null;
  scopes: string[];
  allowedModels: string[] | null;
  allowedServices: string[] | null;
  /** Epoch ms; null = now. */
  validFrom: number | null;
  validUntil: number;
}

interface MandateRow {
  id: string;
  account_id: string;
  key_id: string;
  name: string | null;
  purpose: string;
  budget_micro_usd: number;
  monthly_cap_micro_usd: number | null;
  scopes: string;
  allowed_models: string | null;
  allowed_services: string | null;
  valid_from: number;
  valid_until: number;
  revoked_at: number | null;
  created_at: number;
}

/** What an audit states of the mandate a key was minted for. */
export interface MandateTerms {
  id: string;
  purpose: string;
  budget_micro_usd: number;
  valid_until: number;
}

/** The mandates minted with these keys (as first minted: a rotated key's replacement has none), by key id. */
export function mandatesForKeys(ctx: Context, keyIds: readonly string[]): Map<string, MandateTerms> {
  if (!keyIds.length) return new Map();
  const rows = ctx.db
    .query<MandateTerms & { key_id: string }, [string]>("SELECT id, key_id, purpose, budget_micro_usd, valid_until FROM mandates WHERE key_id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(keyIds));
  return new Map(rows.map(({ key_id, ...terms }) => [key_id, terms]));
}

export type MandateStatus = "active" | "expired" | "revoked" | "exhausted" | "not_yet_valid";

export type MandateView = Static<typeof Mandate>;

/** What a proof's statement decodes to (described to clients by models.ts ProofPayload). */
export type MandateProofPayload = Static<typeof ProofPayload>;

export interface MandateProof extends SignedStatement {
  payload: MandateProofPayload;
}

const list = (json: string | null) => (json === null ? null : (JSON.parse(json) as string[]));
const unique = (values: string[] | null) => (values === null ? null : [...new Set(values)]);

/** Checks the terms and writes the mandate and its key in one transaction; the secret is returned once. */
export function createMandate(ctx: Context, accountId: string, input: MandateInput): { mandate: MandateView; key: string } {
  const now = ctx.clock.now();
  const purpose = input.purpose.trim();
  if (!purpose) throw invalidField("purpose", "must not be blank");
  if (input.monthlyCap !== null && input.monthlyCap > input.budget) {
    throw invalidField("monthly_cap_micro_usd", "must not exceed budget_micro_usd (a larger monthly cap would never apply)");
  }
  let validFrom = input.validFrom ?? now;
  if (validFrom < now - VALID_FROM_SKEW_MS) throw invalidField("valid_from", "must not be in the past (a mandate cannot be valid before it exists)");
  // Within the skew: the mandate starts when it is made, so the proof never predates it.
  validFrom = Math.max(validFrom, now);
  if (validFrom > now + MAX_VALIDITY_DAYS * DAY_MS) throw invalidField("valid_from", `must be within ${MAX_VALIDITY_DAYS} days from now`);
  if (input.validUntil <= validFrom) throw invalidField("valid_until", "must be after valid_from");
  if (input.validUntil - validFrom > MAX_VALIDITY_DAYS * DAY_MS) throw invalidField("valid_until", `must be at most ${MAX_VALIDITY_DAYS} days after valid_from`);
  const allowedModels = unique(input.allowedModels);
  const allowedServices = unique(input.allowedServices);

  return ctx.tx.run(() => {
    const minted = mintKey(ctx, {
      accountId,
      kind: "mandate",
      name: input.name,
      scopes: input.scopes,
      totalCap: input.budget,
      monthlyCap: input.monthlyCap,
      allowedModels,
      allowedServices,
      notBefore: validFrom,
      expiresAt: input.validUntil,
    });
    const row = ctx.db
      .query<MandateRow, (string | number | null)[]>(
        `INSERT INTO mandates (id, account_id, key_id, name, purpose, budget_micro_usd, monthly_cap_micro_usd, scopes, allowed_models, allowed_services, valid_from, valid_until, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId("mdt"),
        accountId,
        minted.view.id,
        input.name,
        purpose,
        input.budget,
        input.monthlyCap,
        JSON.stringify(input.scopes),
        allowedModels && JSON.stringify(allowedModels),
        allowedServices && JSON.stringify(allowedServices),
        validFrom,
        input.validUntil,
        now,
      )!;
    return { mandate: mandateView(ctx, row), key: minted.key };
  });
}

/** The account's mandates, newest first, at most MANDATES_LIST_CAP (every status). */
export function listMandates(ctx: Context, accountId: string): MandateView[] {
  return ctx.db
    .query<MandateRow, [string, number]>("SELECT * FROM mandates WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
    .all(accountId, MANDATES_LIST_CAP)
    .map((r) => mandateView(ctx, r));
}

export function getMandate(ctx: Context, accountId: string, id: string): MandateView {
  return mandateView(ctx, ownMandate(ctx, accountId, id));
}

/**
 * Revokes the mandate's key (and, by the keys' cascade, anything it delegated) and marks the
 * mandate revoked. Idempotent: a second call changes nothing and answers the same view.
 */
export function revokeMandate(ctx: Context, accountId: string, id: string): MandateView {
  return ctx.tx.run(() => {
    const row = ownMandate(ctx, accountId, id);
    revokeKey(ctx, accountId, keyInForce(ctx, row.key_id).id, "mandate_revoked");
    if (row.revoked_at === null) ctx.db.query("UPDATE mandates SET revoked_at = ? WHERE id = ?").run(ctx.clock.now(), row.id);
    return mandateView(ctx, ownMandate(ctx, accountId, id));
  });
}

/**
 * A signed statement of the mandate's terms and its spend at this moment (core/statements.ts:
 * base64url canonical JSON, EIP-191 signature), for an agent to show a counterparty what it
 * may spend and on what. Issued for any status: a revoked or expired mandate's proof says so.
 */
export function mandateProof(ctx: Context, accountId: string, id: string): MandateProof {
  const m = getMandate(ctx, accountId, id);
  const payload: MandateProofPayload = {
    v: 1,
    type: "mandate-proof",
    mandate_id: m.id,
    account_id: accountId,
    key_id: m.key_id,
    purpose: m.purpose,
    budget_micro_usd: m.budget_micro_usd,
    monthly_cap_micro_usd: m.monthly_cap_micro_usd,
    spent_micro_usd: m.spent_micro_usd,
    remaining_micro_usd: m.remaining_micro_usd,
    scopes: m.scopes,
    allowed_models: m.allowed_models,
    allowed_services: m.allowed_services,
    valid_from: m.valid_from,
    valid_until: m.valid_until,
    status: m.status,
    issued_at: isoTime(ctx.clock.now()),
  };
  return { ...signStatement(ctx.signer, { ...payload }), payload };
}

/** Another account's mandate answers the same 404 as an unknown one. */
function ownMandate(ctx: Context, accountId: string, id: string): MandateRow {
  const row = ctx.db.query<MandateRow, [string]>("SELECT * FROM mandates WHERE id = ?").get(id);
  if (!row || row.account_id !== accountId) throw notFound("mandate");
  return row;
}

/**
 * The key in force for a mandate's (or a ghost's) key id. POST /v1/keys/:id/rotate works on
 * these keys too; the replacement inherits the controls and the spend, so the record follows
 * it, and revoking or extending must reach it. (This belongs in keys/store.ts; it lives here
 * because that file was being changed by someone else when mandates and ghosts were written.)
 */
function statusOf(row: MandateRow, key: KeyRow, spent: number, now: number): MandateStatus {
  // A key revoked through DELETE /v1/keys/:id revokes the mandate just the same.
  if (row.revoked_at !== null || key.revoked_at !== null) return "revoked";
  if (now >= row.valid_until) return "expired";
  if (now < row.valid_from) return "not_yet_valid";
  if (spent >= row.budget_micro_usd) return "exhausted";
  return "active";
}

function mandateView(ctx: Context, row: MandateRow): MandateView {
  const key = keyInForce(ctx, row.key_id);
  const held = ctx.meter.heldByKey(key.id);
  const spent = ctx.meter.lifetimeSpent(key.id);
  const revokedAt = row.revoked_at ?? key.revoked_at;
  return {
    id: row.id,
    key_id: key.id,
    key_prefix: key.prefix,
    name: row.name,
    purpose: row.purpose,
    budget_micro_usd: row.budget_micro_usd,
    monthly_cap_micro_usd: row.monthly_cap_micro_usd,
    spent_micro_usd: spent,
    held_micro_usd: held,
    remaining_micro_usd: Math.max(0, row.budget_micro_usd - spent),
    scopes: JSON.parse(row.scopes) as string[],
    allowed_models: list(row.allowed_models),
    allowed_services: list(row.allowed_services),
    valid_from: isoTime(row.valid_from),
    valid_until: isoTime(row.valid_until),
    status: statusOf(row, key, spent, ctx.clock.now()),
    revoked_at: revokedAt === null ? null : isoTime(revokedAt),
    created_at: isoTime(row.created_at),
  };
}
