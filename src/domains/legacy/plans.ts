/**
 * Legacy plans, the owner's side (spec §4.4, session routes; docs/legacy.md): create a plan
 * with its beneficiaries' claim links, list and read plans, check in, replace the sealed
 * content, cancel. The rules:
 *
 * - Each beneficiary's claim token is shown once (in the create answer) and kept as sha256.
 * - Attesters are wallets, never the owner's own; attesters_required defaults to 1, and the
 *   hold (max_hold_s) to legacy.default_max_hold_secs.
 * - A check-in works from active, warning and released (while no one has opened the plan):
 *   the deadline restarts from now, and the warning and every attester confirmation are cleared.
 * - Content is replaced as a whole, while the plan is active or in warning; each object's
 *   bytes are sealed with the master key, AAD bound to plan and object.
 * - Cancelling (from any state) nulls the ciphertexts and the claim-token digests in the
 *   transaction that marks it cancelled; rows, object names and history stay. Idempotent.
 * - Another account's plan answers the same 404 as an unknown one.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { normalizeAddress, walletAddressesOf } from "../auth/index.ts";
import { LIST_CAP } from "./limits.ts";
import { liveCount, objectAad, planById, type PlanRow, plansOf, recordHistory } from "./store.ts";
import { planDetailView, type PlanDetailView, planView, type PlanView } from "./views.ts";

export const CLAIM_TOKEN_PREFIX = "lgc";

export interface CreatePlanInput {
  name: string;
  checkin_interval_s: number;
  warning_period_s: number;
  attesters?: string[];
  attesters_required?: number;
  max_hold_s?: number;
  beneficiaries: { wallet?: string; label?: string }[];
}

export interface ClaimLinkView {
  beneficiary_id: string;
  label: string | null;
  wallet: string | null;
  token: string;
  url: string;
}

export const claimUrl = (ctx: Context, token: string): string => `${ctx.config.public_url}/v1/legacy/claim/${token}`;

/** Another account's plan is "not found", like one that does not exist. */
export function ownPlan(ctx: Context, accountId: string, id: string): PlanRow {
  const row = planById(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("legacy plan");
  return row;
}

function distinctWallets(values: string[], field: string): string[] {
  const seen = new Set<string>();
  return values.map((v, i) => {
    const w = normalizeAddress(v, `${field}[${i}]`);
    if (seen.has(w)) throw invalidField(`${field}[${i}]`, "is listed twice");
    seen.add(w);
    return w;
  });
}

/** Checks the terms a schema cannot: wallets (distinct, not the owner's for attesters) and the brake's numbers. */
function checkedTerms(ctx: Context, accountId: string, input: CreatePlanInput) {
  const attesters = distinctWallets(input.attesters ?? [], "attesters");
  const own = new Set(walletAddressesOf(ctx, accountId));
  attesters.forEach((w, i) => {
    if (own.has(w)) throw invalidField(`attesters[${i}]`, "is one of your own wallets: an attester must be someone else");
  });
  if (!attesters.length && input.attesters_required !== undefined) throw invalidField("attesters_required", "needs attesters");
  if (!attesters.length && input.max_hold_s !== undefined) throw invalidField("max_hold_s", "needs attesters");
  const required = attesters.length ? (input.attesters_required ?? 1) : 0;
  if (required > attesters.length) throw invalidField("attesters_required", `must be at most the number of attesters (${attesters.length})`);
  const seen = new Set<string>();
  const beneficiaries = input.beneficiaries.map((b, i) => {
    const w = b.wallet === undefined ? null : normalizeAddress(b.wallet, `beneficiaries[${i}].wallet`);
    if (w !== null && seen.has(w)) throw invalidField(`beneficiaries[${i}].wallet`, "is listed twice");
    if (w !== null) seen.add(w);
    return { wallet: w, label: b.label?.trim() ?? null };
  });
  const maxHold = attesters.length ? (input.max_hold_s ?? ctx.config.legacy.default_max_hold_secs) : null;
  return { attesters, required, beneficiaries, maxHold };
}

export function createPlan(ctx: Context, accountId: string, input: CreatePlanInput): { plan: PlanView; claim_links: ClaimLinkView[] } {
  const terms = checkedTerms(ctx, accountId, input);
  const now = ctx.clock.now();
  const id = newId("lgp");
  const max = ctx.config.legacy.max_active_plans;
  const links = terms.beneficiaries.map((b) => ({ id: newId("lgb"), token: newSecret(CLAIM_TOKEN_PREFIX), ...b }));
  const row = ctx.tx.run(() => {
    if (liveCount(ctx, accountId) >= max) {
      throw new ApiError(409, "legacy_plan_limit", `this account holds ${max} plans that are not claimed or cancelled, the most allowed (legacy.max_active_plans); cancel one first`, { limit: max });
    }
    const deadline = now + input.checkin_interval_s * 1000;
    ctx.db
      .query(
        `INSERT INTO legacy_plans (id, account_id, name, status, checkin_interval_s, warning_period_s, attesters_required, max_hold_s, last_checkin_at, deadline_at, next_check_at, created_at)
         VALUES (?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, accountId, input.name.trim(), input.checkin_interval_s, input.warning_period_s, terms.required, terms.maxHold, now, deadline, deadline, now);
    const attester = ctx.db.query("INSERT INTO legacy_attesters (plan_id, wallet, position) VALUES (?, ?, ?)");
    terms.attesters.forEach((w, i) => attester.run(id, w, i));
    const beneficiary = ctx.db.query("INSERT INTO legacy_beneficiaries (id, plan_id, position, label, wallet, token_sha256) VALUES (?, ?, ?, ?, ?, ?)");
    links.forEach((l, i) => beneficiary.run(l.id, id, i, l.label, l.wallet, sha256Hex(l.token)));
    recordHistory(ctx, id, "created", now, { beneficiaries: links.length, attesters: terms.attesters.length, attesters_required: terms.required });
    return planById(ctx, id)!;
  });
  const plan = planView(ctx, row);
  return {
    plan,
    claim_links: links.map((l, i) => ({ beneficiary_id: l.id, label: l.label, wallet: plan.beneficiaries[i]!.wallet, token: l.token, url: claimUrl(ctx, l.token) })),
  };
}

export function listPlans(ctx: Context, accountId: string): PlanView[] {
  return plansOf(ctx, accountId, LIST_CAP).map((p) => planView(ctx, p));
}

export function getPlan(ctx: Context, accountId: string, id: string): PlanDetailView {
  return planDetailView(ctx, ownPlan(ctx, accountId, id));
}

const closedPlan = (p: PlanRow): ApiError =>
  conflict("legacy_plan_closed", `this plan is ${p.status}: ${p.status === "claimed" ? "its content was already handed to a beneficiary" : "it was cancelled"}`);

export function checkin(ctx: Context, accountId: string, id: string): PlanView {
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    // Not advanced first: an owner checking in is alive, whatever the sweep has not yet got to.
    const p = ownPlan(ctx, accountId, id);
    if (p.status === "claimed" || p.status === "cancelled") throw closedPlan(p);
    const deadline = now + p.checkin_interval_s * 1000;
    ctx.db
      .query(
        `UPDATE legacy_plans SET status = 'active', last_checkin_at = ?1, deadline_at = ?2, next_check_at = ?2,
           warning_started_at = NULL, released_at = NULL, release_reason = NULL WHERE id = ?3`,
      )
      .run(now, deadline, p.id);
    const cleared = ctx.db.query("DELETE FROM legacy_confirmations WHERE plan_id = ?").run(p.id).changes;
    recordHistory(ctx, p.id, "checkin", now, { from: p.status, deadline_at: isoTime(deadline), confirmations_cleared: cleared });
    return planView(ctx, planById(ctx, p.id)!);
  });
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const contentTooLarge = (max: number): ApiError =>
  new ApiError(413, "legacy_content_too_large", `objects: their bytes together exceed ${max} (legacy.max_content_bytes)`, { param: "objects", limit_bytes: max });

function decode(b64: string, index: number, max: number): Buffer {
  // 4 characters carry 3 bytes: refuse before decoding what could not fit.
  if (Math.floor((b64.length * 3) / 4) > max + 3) throw contentTooLarge(max);
  if (!BASE64.test(b64) || b64.replace(/=+$/, "").length % 4 === 1) throw invalidField(`objects[${index}].content_b64`, "is not base64");
  return Buffer.from(b64, "base64");
}

export function replaceContent(ctx: Context, accountId: string, id: string, objects: { name: string; content_b64: string }[]): PlanView {
  const max = ctx.config.legacy.max_content_bytes;
  const decoded = objects.map((o, i) => ({ name: o.name.trim(), bytes: decode(o.content_b64, i, max) }));
  const total = decoded.reduce((sum, o) => sum + o.bytes.length, 0);
  if (total > max) throw contentTooLarge(max);
  const now = ctx.clock.now();
  const planId = ownPlan(ctx, accountId, id).id;
  // Sealed before the transaction: the write lock is held for the rows only.
  const sealed = decoded.map((o) => {
    const objectId = newId("lgo");
    return { id: objectId, name: o.name, bytes: o.bytes.length, sealed: ctx.sealer.seal(o.bytes, objectAad(planId, objectId)) };
  });
  return ctx.tx.run(() => {
    const p = planById(ctx, planId)!;
    if (p.status === "released") throw conflict("legacy_plan_released", "this plan is released: its content is frozen for the beneficiaries; check in first to take it back");
    if (p.status === "claimed" || p.status === "cancelled") throw closedPlan(p);
    ctx.db.query("DELETE FROM legacy_objects WHERE plan_id = ?").run(p.id);
    const insert = ctx.db.query("INSERT INTO legacy_objects (id, plan_id, position, name, bytes, sealed) VALUES (?, ?, ?, ?, ?, ?)");
    sealed.forEach((o, i) => insert.run(o.id, p.id, i, o.name, o.bytes, o.sealed));
    ctx.db.query("UPDATE legacy_plans SET object_count = ?, content_bytes = ?, content_updated_at = ? WHERE id = ?").run(sealed.length, total, now, p.id);
    recordHistory(ctx, p.id, "content_replaced", now, { objects: sealed.length, bytes: total });
    return planView(ctx, planById(ctx, p.id)!);
  });
}

export function cancelPlan(ctx: Context, accountId: string, id: string): PlanView {
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const p = ownPlan(ctx, accountId, id);
    if (p.status !== "cancelled") {
      ctx.db.query("UPDATE legacy_plans SET status = 'cancelled', cancelled_at = ?, next_check_at = NULL WHERE id = ?").run(now, p.id);
      ctx.db.query("UPDATE legacy_objects SET sealed = NULL WHERE plan_id = ?").run(p.id);
      ctx.db.query("UPDATE legacy_beneficiaries SET token_sha256 = NULL WHERE plan_id = ?").run(p.id);
      ctx.db.query("DELETE FROM legacy_confirmations WHERE plan_id = ?").run(p.id);
      recordHistory(ctx, p.id, "cancelled", now, { from: p.status });
    }
    return planView(ctx, planById(ctx, p.id)!);
  });
}
