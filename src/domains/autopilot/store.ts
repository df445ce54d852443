/**
 * Proposal rows, who may see them, and what the API shows of them. A proposal is visible to
 * the account that analysed (it is about that account) and, when shared with an org, to that
 * org's members; to anyone else it answers the same 404 as an unknown id.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { listOrgs, orgRole } from "../orgs/index.ts";
import type { ProposalKind, ProposalStatus } from "./limits.ts";
// Types only: the schemas describe what proposalView builds.
import type { Proposal } from "./models.ts";

export type ProposalView = Static<typeof Proposal>;
export type Evidence = ProposalView["evidence"];
export type Change = ProposalView["change"];
export type Applied = NonNullable<ProposalView["applied"]>;

export interface ProposalRow {
  id: string;
  account_id: string;
  org_id: string | null;
  kind: ProposalKind;
  target: string;
  status: ProposalStatus;
  summary: string;
  evidence: string;
  change: string;
  period_from: number;
  period_to: number;
  created_at: number;
  applied: string | null;
  adopted_by: string | null;
  adopted_at: number | null;
  rejected_by: string | null;
  rejected_at: number | null;
  reject_reason: string | null;
  superseded_by: string | null;
  superseded_at: number | null;
}

/** A proposal before it is written: what an analysis found. */
export interface Draft {
  kind: ProposalKind;
  target: string;
  summary: string;
  evidence: Evidence;
  change: Change;
  /** Orders an analysis's drafts when the open-proposal cap leaves room for only some (micro-USD at stake). */
  weight: number;
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function proposalView(r: ProposalRow): ProposalView {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    account_id: r.account_id,
    org_id: r.org_id,
    target: r.target,
    summary: r.summary,
    evidence: JSON.parse(r.evidence),
    change: JSON.parse(r.change),
    applied: r.applied === null ? null : JSON.parse(r.applied),
    period: { from: isoTime(r.period_from), to: isoTime(r.period_to) },
    created_at: isoTime(r.created_at),
    adopted_by: r.adopted_by,
    adopted_at: iso(r.adopted_at),
    rejected_by: r.rejected_by,
    rejected_at: iso(r.rejected_at),
    reject_reason: r.reject_reason,
    superseded_by: r.superseded_by,
    superseded_at: iso(r.superseded_at),
  } as ProposalView;
}

/** The proposal when `accountId` may see it; 404 (as for an unknown id) otherwise. */
export function visibleProposal(ctx: Context, accountId: string, id: string): ProposalRow {
  const row = ctx.db.query<ProposalRow, [string]>("SELECT * FROM autopilot_proposals WHERE id = ?").get(id);
  if (!row) throw notFound("proposal");
  if (row.account_id === accountId) return row;
  if (row.org_id !== null && orgRole(ctx, row.org_id, accountId) !== null) return row;
  throw notFound("proposal");
}

/** The caller's own proposals and those shared with its orgs, newest first. */
export function listVisible(ctx: Context, accountId: string, filter: { status?: ProposalStatus; limit: number }): ProposalRow[] {
  const orgIds = listOrgs(ctx, accountId).map((o) => o.id);
  return ctx.db
    .query<ProposalRow, [string, string, string | null, number]>(
      `SELECT * FROM autopilot_proposals
       WHERE (account_id = ?1 OR org_id IN (SELECT value FROM json_each(?2))) AND (?3 IS NULL OR status = ?3)
       ORDER BY created_at DESC, rowid DESC LIMIT ?4`,
    )
    .all(accountId, JSON.stringify(orgIds), filter.status ?? null, filter.limit);
}

export function openCount(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM autopilot_proposals WHERE account_id = ? AND status = 'open'").get(accountId)!.n;
}

/** The changes the account's rejected proposals named, as `kind target change-JSON` (an analysis does not propose them again). */
export function rejectedChanges(ctx: Context, accountId: string): Set<string> {
  const rows = ctx.db
    .query<{ kind: string; target: string; change: string }, [string]>("SELECT DISTINCT kind, target, change FROM autopilot_proposals WHERE account_id = ? AND status = 'rejected'")
    .all(accountId);
  return new Set(rows.map((r) => changeKey(r.kind, r.target, r.change)));
}

export const changeKey = (kind: string, target: string, changeJson: string) => `${kind} ${target} ${changeJson}`;

export function hasOpen(ctx: Context, accountId: string, kind: ProposalKind, target: string): boolean {
  return ctx.db.query("SELECT 1 FROM autopilot_proposals WHERE account_id = ? AND kind = ? AND target = ? AND status = 'open'").get(accountId, kind, target) !== null;
}

/** Marks the account's open proposal of this kind and target (if any) superseded by `by`. Inside the caller's transaction. */
export function supersedeOpen(ctx: Context, accountId: string, kind: ProposalKind, target: string, by: string, now: number): void {
  ctx.db
    .query("UPDATE autopilot_proposals SET status = 'superseded', superseded_by = ?, superseded_at = ? WHERE account_id = ? AND kind = ? AND target = ? AND status = 'open'")
    .run(by, now, accountId, kind, target);
}

export function insertProposal(
  ctx: Context,
  p: { id: string; accountId: string; orgId: string | null; draft: Draft; period: { from: number; to: number }; now: number },
): ProposalRow {
  return ctx.db
    .query<ProposalRow, (string | number | null)[]>(
      `INSERT INTO autopilot_proposals (id, account_id, org_id, kind, target, summary, evidence, change, period_from, period_to, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(p.id, p.accountId, p.orgId, p.draft.kind, p.draft.target, p.draft.summary, JSON.stringify(p.draft.evidence), JSON.stringify(p.draft.change), p.period.from, p.period.to, p.now)!;
}

export function getRow(ctx: Context, id: string): ProposalRow {
  return ctx.db.query<ProposalRow, [string]>("SELECT * FROM autopilot_proposals WHERE id = ?").get(id)!;
}

/** Records the adoption: status, who, when and what was applied. Inside the adopting transaction. */
export function markAdopted(ctx: Context, id: string, by: string, applied: Applied, now: number): boolean {
  return ctx.db.query("UPDATE autopilot_proposals SET status = 'adopted', adopted_by = ?, adopted_at = ?, applied = ? WHERE id = ? AND status = 'open'").run(by, now, JSON.stringify(applied), id).changes === 1;
}

export function markRejected(ctx: Context, id: string, by: string, reason: string | null, now: number): boolean {
  return ctx.db.query("UPDATE autopilot_proposals SET status = 'rejected', rejected_by = ?, rejected_at = ?, reject_reason = ? WHERE id = ? AND status = 'open'").run(by, now, reason, id).changes === 1;
}
