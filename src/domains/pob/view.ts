/**
 * What the routes answer: a subject as its owner sees it (sources as the evidence area shows
 * them — the credential only as has_credential), as the public sees it (no id, no account, no
 * credential flag), and a check, which is the same for both.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { sourceView, type StoredSource } from "../evidence/index.ts";
import type * as M from "./models.ts";
import { type CheckRecord, latestCheck, type SubjectRecord } from "./store.ts";

export type CheckView = Static<typeof M.Check>;
export type SubjectView = Static<typeof M.Subject>;
export type PublicSubjectView = Static<typeof M.PublicSubject>;

export const publicPath = (slug: string) => `/v1/pob/public/${slug}`;

export function checkView(slug: string, c: CheckRecord): CheckView {
  return {
    slug,
    seq: c.seq,
    checked_at: isoTime(c.checkedAt),
    status: c.status,
    reserve: c.reserve,
    supply: c.supply,
    reason: c.reason,
    triggered_by: c.triggeredBy,
    line: c.line,
    line_sha256: c.lineSha256,
    signature: c.signature,
    signer: c.signer,
    evidence: c.evidence,
  };
}

export function subjectView(ctx: Context, s: SubjectRecord): SubjectView {
  const latest = latestCheck(ctx, s.id);
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    status: s.status,
    interval_s: s.intervalS,
    reserve_source: sourceView(s.reserveSource),
    claimed_supply: s.claimedSupply,
    supply_source: s.supplySource === null ? null : sourceView(s.supplySource),
    next_check_at: s.nextCheckAt === null ? null : isoTime(s.nextCheckAt),
    checks: latest.count,
    latest_check: latest.check === null ? null : checkView(s.slug, latest.check),
    public_path: publicPath(s.slug),
    created_at: isoTime(s.createdAt),
    updated_at: isoTime(s.updatedAt),
    retired_at: s.retiredAt === null ? null : isoTime(s.retiredAt),
  };
}

const publicSource = (s: StoredSource) => ({ kind: s.kind, label: s.label, source_ref: s.source_ref, pointer: s.pointer, chain: s.chain, token: s.token });

export function publicSubjectView(ctx: Context, s: SubjectRecord): PublicSubjectView {
  const latest = latestCheck(ctx, s.id);
  return {
    slug: s.slug,
    name: s.name,
    status: s.status,
    interval_s: s.intervalS,
    reserve_source: publicSource(s.reserveSource),
    claimed_supply: s.claimedSupply,
    supply_source: s.supplySource === null ? null : publicSource(s.supplySource),
    checks: latest.count,
    latest_check: latest.check === null ? null : checkView(s.slug, latest.check),
    created_at: isoTime(s.createdAt),
    retired_at: s.retiredAt === null ? null : isoTime(s.retiredAt),
  };
}
