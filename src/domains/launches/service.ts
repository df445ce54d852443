/**
 * Launches themselves: creation (spec §5 rule 7: the admin role of the account it is made for),
 * who sees and who manages one, the owner's and the public's views, PATCH of the few settings
 * that may change, and retirement. Checks, tokens, tools and redemptions have their own files.
 *
 * Who: a launch made without org_id is the account's own (it acts as its owner). One made with
 * org_id needs its creator to be an admin or owner of the org; every member of the org sees it,
 * and managing it (PATCH, token, check, mint, tools, retire, subscription) needs the org's
 * admin role (403 insufficient_role for a member). Anyone else gets the 404 of an unknown id.
 */
import { slugStem } from "../../core/slug.ts";
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict, invalidField, notFound, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Context } from "../../context.ts";
import { type EvidenceSourceInput, patchSource, prepareSource, sourceView, type StoredSource } from "../evidence/index.ts";
import { listOrgs, orgRole, requireActingRole } from "../orgs/index.ts";
import { appendAction } from "./actions.ts";
import { checkView, isStale } from "./check-view.ts";
import { scheduleCheck } from "./schedule.ts";
import { lockSpec } from "./spec.ts";
import { insertLaunch, latestCheck, launchById, launchBySlug, launchesVisibleTo, type LaunchRow, publicLaunches, retireLaunch, slugTaken, updateLaunchSettings } from "./store.ts";

export const LAUNCH_LIST_CAP = 200;
export const SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$";
const SLUG = new RegExp(SLUG_PATTERN);
export const MAX_INTERVAL_SECS = 30 * 86_400;

export interface CreateInput {
  name: string;
  slug: string | null;
  orgId: string | null;
  custodian: Static<typeof EvidenceSourceInput>;
  decimals: number;
  intervalS: number;
  spec: Record<string, unknown>;
  revealAt: number | null;
}

const custodianOf = (row: LaunchRow): StoredSource => JSON.parse(row.custodian) as StoredSource;

function checkInterval(ctx: Context, value: number): number {
  const min = ctx.config.launches.min_interval_secs;
  if (value < min || value > MAX_INTERVAL_SECS) throw invalidField("interval_s", `must be between ${min} and ${MAX_INTERVAL_SECS} seconds`);
  return value;
}

function custodianSource(ctx: Context, accountId: string, input: Static<typeof EvidenceSourceInput>): StoredSource {
  if (input.kind !== "custodian") throw invalidField("custodian.kind", 'must be "custodian": an endpoint, a credential and a pointer to the reserve figure');
  return prepareSource(ctx, accountId, input, "custodian");
}

function slugFor(name: string, id: string): string {
  const base = slugStem(name, "launch");
  // The id's random tail keeps two launches of one name apart without a loop of guesses.
  return `${base}-${id.slice(-6)}`;
}

/** POST /v1/launches. */
export async function createLaunch(ctx: Context, accountId: string, input: CreateInput): Promise<LaunchRow> {
  if (!ctx.config.launches.enabled) throw notImplemented("launch creation (launches.enabled)");
  if (input.orgId !== null) requireActingRole(ctx, accountId, input.orgId, "admin");
  const custodian = custodianSource(ctx, accountId, input.custodian);
  checkInterval(ctx, input.intervalS);
  const locked = lockSpec(input.spec);
  const id = newId("lch");
  const slug = input.slug ?? slugFor(input.name, id);
  if (!SLUG.test(slug)) throw invalidField("slug", "must be 1-64 lowercase letters, digits and inner hyphens");
  if (slugTaken(ctx, slug)) throw conflict("slug_taken", `the slug "${slug}" is taken; choose another`);
  const now = ctx.clock.now();
  const row: LaunchRow = {
    id,
    account_id: accountId,
    org_id: input.orgId,
    name: input.name.trim(),
    slug,
    custodian: JSON.stringify(custodian),
    decimals: input.decimals,
    interval_s: input.intervalS,
    spec_canonical: locked.canonical,
    digest: locked.digest,
    reveal_at: input.revealAt,
    verdict_signer: ctx.signer.address,
    status: "active",
    chain: null,
    chain_id: null,
    token: null,
    bound_at: null,
    mint_nonce: 0,
    fee_paid_until: now + MONTH_MS,
    created_at: now,
    updated_at: now,
    retired_at: null,
  };
  const insert = () =>
    ctx.tx.run(() => {
      if (slugTaken(ctx, slug)) throw conflict("slug_taken", `the slug "${slug}" is taken; choose another`);
      insertLaunch(ctx, row);
      appendAction(ctx, id, "created", { name: row.name, slug, digest: row.digest, verdict_signer: row.verdict_signer, reveal_at: row.reveal_at === null ? null : isoTime(row.reveal_at) });
      scheduleCheck(ctx, id, 0);
    });
  const fee = ctx.config.launches.launch_fee_micro_usd;
  if (fee > 0) {
    await meterWork(ctx.meter, ctx.log, { accountId, keyId: null, price: fee, kind: "launch_fee", resource: id }, async () => {
      insert();
      return { result: null, status: "created", units: { launch_id: id, slug } };
    });
  } else {
    insert();
  }
  return launchById(ctx, id)!;
}

export const MONTH_MS = 30 * 86_400_000;

/** The launch when `accountId` may see it (its own, or its org's); 404 otherwise, as for an unknown id. */
export function visibleLaunch(ctx: Context, accountId: string, id: string): LaunchRow {
  const row = launchById(ctx, id);
  if (!row) throw notFound("launch");
  if (row.account_id === accountId) return row;
  if (row.org_id !== null && orgRole(ctx, row.org_id, accountId) !== null) return row;
  throw notFound("launch");
}

/** The launch when `accountId` may manage it: visible, and the admin role of its org (its own: always). */
export function managedLaunch(ctx: Context, accountId: string, id: string): LaunchRow {
  const row = visibleLaunch(ctx, accountId, id);
  requireActingRole(ctx, accountId, row.org_id, "admin");
  return row;
}

export function activeLaunch(row: LaunchRow): LaunchRow {
  if (row.status !== "active") throw conflict("launch_retired", `launch ${row.id} is retired; its published record stays public, nothing new is done for it`);
  return row;
}

export function publicLaunch(ctx: Context, slug: string): LaunchRow {
  const row = launchBySlug(ctx, slug);
  if (!row) throw notFound("launch");
  return row;
}

export const revealed = (ctx: Context, row: LaunchRow): boolean => row.reveal_at === null || ctx.clock.now() >= row.reveal_at;

function tokenView(row: LaunchRow) {
  return row.token === null ? null : { chain: row.chain!, chain_id: row.chain_id!, address: row.token, bound_at: isoTime(row.bound_at!) };
}

function latestView(ctx: Context, row: LaunchRow) {
  const check = latestCheck(ctx, row.id);
  return check === null ? null : { ...checkView(check), stale: isStale(ctx, row, check) };
}

/** What anyone sees (GET /v1/launches, /public/:slug): the spec only once revealed, the digest always. */
export function publicView(ctx: Context, row: LaunchRow) {
  const open = revealed(ctx, row);
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    spec: open ? (JSON.parse(row.spec_canonical) as Record<string, unknown>) : null,
    spec_canonical: open ? row.spec_canonical : null,
    digest: row.digest,
    reveal_at: row.reveal_at === null ? null : isoTime(row.reveal_at),
    revealed: open,
    verdict_signer: row.verdict_signer,
    decimals: row.decimals,
    interval_s: row.interval_s,
    custodian: sourceView(custodianOf(row)),
    token: tokenView(row),
    latest_check: latestView(ctx, row),
    created_at: isoTime(row.created_at),
    retired_at: row.retired_at === null ? null : isoTime(row.retired_at),
  };
}

/** What its managers see: the spec whatever reveal_at says. */
export function ownerView(ctx: Context, row: LaunchRow) {
  return {
    ...publicView(ctx, row),
    spec: JSON.parse(row.spec_canonical) as Record<string, unknown>,
    spec_canonical: row.spec_canonical,
    account_id: row.account_id,
    org_id: row.org_id,
    updated_at: isoTime(row.updated_at),
  };
}

export function listMine(ctx: Context, accountId: string) {
  const orgIds = listOrgs(ctx, accountId).map((o) => o.id);
  return launchesVisibleTo(ctx, accountId, orgIds, LAUNCH_LIST_CAP).map((r) => ownerView(ctx, r));
}

export const listPublic = (ctx: Context) => publicLaunches(ctx, LAUNCH_LIST_CAP).map((r) => publicView(ctx, r));

export interface PatchInput {
  custodian?: { url?: string; credential?: string; pointer?: string };
  decimals?: number;
  interval_s?: number;
}

/** PATCH /v1/launches/:id: the custodian's endpoint, credential and pointer, decimals (until a token is bound), interval. */
export function patchLaunch(ctx: Context, accountId: string, id: string, patch: PatchInput): LaunchRow {
  const row = activeLaunch(managedLaunch(ctx, accountId, id));
  const custodian = patch.custodian ? patchSource(ctx, row.account_id, custodianOf(row), patch.custodian, "custodian") : custodianOf(row);
  if (patch.decimals !== undefined && patch.decimals !== row.decimals && row.token !== null) {
    throw new ApiError(409, "token_bound", `decimals follow the bound token (${row.decimals}); they can change only before POST /v1/launches/${row.id}/token`);
  }
  const intervalS = patch.interval_s === undefined ? row.interval_s : checkInterval(ctx, patch.interval_s);
  const changed = [...(patch.custodian ? Object.keys(patch.custodian).map((k) => `custodian.${k}`) : []), ...(patch.decimals !== undefined ? ["decimals"] : []), ...(patch.interval_s !== undefined ? ["interval_s"] : [])];
  return ctx.tx.run(() => {
    updateLaunchSettings(ctx, row.id, { custodian: JSON.stringify(custodian), decimals: patch.decimals ?? row.decimals, interval_s: intervalS, now: ctx.clock.now() });
    // The log names what changed, never a credential or an endpoint's query.
    if (changed.length) appendAction(ctx, row.id, "settings_changed", { fields: changed, custodian_ref: custodian.source_ref, decimals: patch.decimals ?? row.decimals, interval_s: intervalS });
    return launchById(ctx, row.id)!;
  });
}

/** POST /v1/launches/:id/retire: idempotent; its checks and actions stay public. */
export function retire(ctx: Context, accountId: string, id: string): LaunchRow {
  const row = managedLaunch(ctx, accountId, id);
  return ctx.tx.run(() => {
    if (retireLaunch(ctx, row.id, ctx.clock.now())) appendAction(ctx, row.id, "retired", {});
    return launchById(ctx, row.id)!;
  });
}

export { custodianOf };
