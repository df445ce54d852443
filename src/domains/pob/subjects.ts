/**
 * Proof-of-backing subjects (spec §4.4, §3; docs/pob.md). The rules:
 * - A subject's reserve is a custodian evidence source (endpoint + credential + pointer); its
 *   supply, optional, is a fixed claimed_supply or a second evidence source read at each check.
 * - Its slug is derived from the name at creation, unique across all accounts, and never
 *   changed or freed (renaming keeps it; subjects are never deleted).
 * - PATCH changes only name, endpoint, credential, pointer and interval_s; the closed schema
 *   refuses (and names) any other field. A retired subject changes no more (409).
 * - active → retired, and only that way: scheduled checks stop; published checks stay public.
 * - Another account's subject answers the same 404 as an unknown one.
 * - Checks are free: no metering, no receipt; the signed line is the proof.
 */
import type { Static } from "@sinclair/typebox";
import { ApiError, invalidField, notFound, rateLimited } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { decimalText, type EvidenceSourceInput, patchSource, prepareSource, type StoredSource } from "../evidence/index.ts";
import { runCheck } from "./checks.ts";
import { OWNER_CHECK_COOLDOWN_SECS, SUBJECTS_LIST_CAP } from "./limits.ts";
import type * as M from "./models.ts";
import { checkJobKey } from "./schedule.ts";
import { freeSlug, subjectSlugStem } from "./slug.ts";
import {
  countActive,
  insertSubject,
  latestCheck,
  markOwnerCheck,
  markRetired,
  slugTaken,
  subjectById,
  subjectsOf,
  type CheckRecord,
  type SubjectRecord,
  updateSubject,
} from "./store.ts";
import { subjectView, type SubjectView } from "./view.ts";

/** The reserve source's label in evidence references (the subject's name can change; the role cannot). */
const RESERVE_LABEL = "reserve";

/** prepareSource names its fields source.url / source.pointer; the subject's body calls them endpoint / pointer. */
const BODY_FIELDS: Record<string, string> = { "source.url": "endpoint", "source.pointer": "pointer", "source.credential": "credential" };

function reserveSourceFrom(build: () => StoredSource): StoredSource {
  try {
    return build();
  } catch (err) {
    const param = err instanceof ApiError ? err.extra.param : undefined;
    if (typeof param === "string" && BODY_FIELDS[param]) throw invalidField(BODY_FIELDS[param], err instanceof ApiError ? err.message.slice(param.length + 2) : "is not valid");
    throw err;
  }
}

function checkedInterval(ctx: Context, interval: number | undefined): number {
  const value = interval ?? ctx.config.pob.default_interval_secs;
  const min = ctx.config.pob.min_interval_secs;
  if (value < min) throw invalidField("interval_s", `must be at least ${min} seconds (pob.min_interval_secs)`);
  return value;
}

const blankName = (name: string) => {
  const trimmed = name.trim();
  if (!trimmed) throw invalidField("name", "must not be blank");
  return trimmed;
};

function supplySourceFrom(ctx: Context, accountId: string, input: Static<typeof EvidenceSourceInput>): StoredSource {
  if (input.kind === "price") throw invalidField("supply_source.kind", "a price is not a supply; use erc20_supply, custodian or third_party_attestation");
  if (input.kind === "third_party_attestation" && input.pointer === undefined) throw invalidField("supply_source.pointer", "is required: the supply is the figure at the pointer");
  return prepareSource(ctx, accountId, input, "supply_source");
}

export function createSubject(ctx: Context, accountId: string, body: Static<typeof M.CreateBody>): SubjectView {
  const name = blankName(body.name);
  const intervalS = checkedInterval(ctx, body.interval_s);
  if (body.claimed_supply !== undefined && body.supply_source !== undefined) throw invalidField("supply_source", "give either claimed_supply or supply_source, not both");
  const claimedSupply = body.claimed_supply === undefined ? null : decimalText(body.claimed_supply);
  if (body.claimed_supply !== undefined && claimedSupply === null) throw invalidField("claimed_supply", "must be a non-negative decimal as text");
  const reserveSource = reserveSourceFrom(() =>
    prepareSource(ctx, accountId, { kind: "custodian", url: body.endpoint, pointer: body.pointer, label: RESERVE_LABEL, ...(body.credential ? { credential: body.credential } : {}) }, "source"),
  );
  const supplySource = body.supply_source === undefined ? null : supplySourceFrom(ctx, accountId, body.supply_source);
  return ctx.tx.run(() => {
    const max = ctx.config.pob.max_active_subjects;
    if (countActive(ctx, accountId) >= max) {
      throw new ApiError(409, "subject_limit_reached", `this account has ${max} active proof-of-backing subjects, the most allowed; retire one first`, { limit: max });
    }
    const id = newId("pob");
    const slug = freeSlug(subjectSlugStem(name), (s) => slugTaken(ctx, s));
    insertSubject(ctx, { id, accountId, slug, name, reserveSource, claimedSupply, supplySource, intervalS, at: ctx.clock.now() });
    return subjectView(ctx, subjectById(ctx, id)!);
  });
}

export function listSubjects(ctx: Context, accountId: string): SubjectView[] {
  return subjectsOf(ctx, accountId, SUBJECTS_LIST_CAP).map((s) => subjectView(ctx, s));
}

/** The account's subject; another account's answers the same 404 as an unknown id. */
export function ownSubject(ctx: Context, accountId: string, id: string): SubjectRecord {
  const s = subjectById(ctx, id);
  if (!s || s.accountId !== accountId) throw notFound("proof-of-backing subject");
  return s;
}

export const getSubject = (ctx: Context, accountId: string, id: string): SubjectView => subjectView(ctx, ownSubject(ctx, accountId, id));

const retired = (s: SubjectRecord) =>
  new ApiError(409, "subject_retired", `proof-of-backing subject ${s.id} is retired: it is no longer checked or changed (its published checks stay public)`, { status: s.status });

export function patchSubject(ctx: Context, accountId: string, id: string, patch: Static<typeof M.PatchBody>): SubjectView {
  const s = ownSubject(ctx, accountId, id);
  if (s.status !== "active") throw retired(s);
  const name = patch.name === undefined ? s.name : blankName(patch.name);
  const intervalS = patch.interval_s === undefined ? s.intervalS : checkedInterval(ctx, patch.interval_s);
  let reserveSource = s.reserveSource;
  if (patch.endpoint !== undefined || patch.pointer !== undefined || typeof patch.credential === "string") {
    reserveSource = reserveSourceFrom(() =>
      patchSource(ctx, accountId, s.reserveSource, { url: patch.endpoint, pointer: patch.pointer, ...(typeof patch.credential === "string" ? { credential: patch.credential } : {}) }, "source"),
    );
  }
  if (patch.credential === null) reserveSource = { ...reserveSource, credential_sealed: null };
  return ctx.tx.run(() => {
    const current = ownSubject(ctx, accountId, id);
    if (current.status !== "active") throw retired(current);
    let nextCheckAt = current.nextCheckAt;
    if (intervalS !== current.intervalS) {
      // A new interval counts from the latest check (or the creation): the schedule stays one rule.
      nextCheckAt = (latestCheck(ctx, id).check?.checkedAt ?? current.createdAt) + intervalS * 1000;
    }
    updateSubject(ctx, id, { name, reserveSource, intervalS, nextCheckAt, at: ctx.clock.now() });
    return subjectView(ctx, subjectById(ctx, id)!);
  });
}

/** Retires the subject; retiring a retired subject again changes nothing. */
export function retireSubject(ctx: Context, accountId: string, id: string): SubjectView {
  return ctx.tx.run(() => {
    const s = ownSubject(ctx, accountId, id);
    if (s.status === "active") {
      markRetired(ctx, id, ctx.clock.now());
      ctx.scheduler.cancel(checkJobKey(id));
    }
    return subjectView(ctx, subjectById(ctx, id)!);
  });
}

/** Runs a check now for the owner (free). At most one per OWNER_CHECK_COOLDOWN_SECS, so a loop cannot flood the public history. */
export async function checkNow(ctx: Context, accountId: string, id: string): Promise<{ subject: SubjectRecord; check: CheckRecord }> {
  const subject = ctx.tx.run(() => {
    const s = ownSubject(ctx, accountId, id);
    if (s.status !== "active") throw retired(s);
    const now = ctx.clock.now();
    const readyAt = s.lastOwnerCheckAt === null ? now : s.lastOwnerCheckAt + OWNER_CHECK_COOLDOWN_SECS * 1000;
    if (readyAt > now) throw rateLimited(Math.ceil((readyAt - now) / 1000), `a check of this subject was asked for less than ${OWNER_CHECK_COOLDOWN_SECS} seconds ago`);
    markOwnerCheck(ctx, id, now);
    return s;
  });
  const check = await runCheck(ctx, subject, "owner");
  if (!check) throw retired(subjectById(ctx, id)!);
  return { subject, check };
}
