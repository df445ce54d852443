/**
 * The autopilot's rules (docs/autopilot.md): an analysis reads the account's inference usage
 * per model, its keys' monthly spend and its latest eval runs, and writes proposals, each
 * replacing an open one of the same kind and target (a change someone rejected is not proposed
 * again; a different one for the same target is); a proposal is adopted — its change
 * applied through the owning area — or rejected by someone with the right to decide, once.
 *
 * Who decides: a personal proposal, its account (the owner of its own resources); one shared
 * with an org, an admin or owner of that org (spec §5 rule 7), 403 insufficient_role for a
 * member. The decision (who, when, what was applied, the previous value included) is written
 * on the proposal in the transaction that applies it.
 */
import { isoTime } from "../../core/clock.ts";
import { conflict } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { latestEvalRuns } from "../evals/index.ts";
import { requireActingRole, requireOrgRole } from "../orgs/index.ts";
import { inferenceUsageByModel } from "../usage/index.ts";
import { adoptKeyCap, keyCapDrafts } from "./key-cap.ts";
import { OPEN_PROPOSALS_CAP, type ProposalStatus } from "./limits.ts";
import {
  getRow,
  changeKey,
  hasOpen,
  insertProposal,
  listVisible,
  markAdopted,
  markRejected,
  openCount,
  type ProposalRow,
  rejectedChanges,
  proposalView,
  type ProposalView,
  supersedeOpen,
  visibleProposal,
} from "./store.ts";
import { adoptSwitch, switchDrafts } from "./switch-model.ts";

const DAY_MS = 86_400_000;

export interface AnalyzeInput {
  orgId: string | null;
  days: number;
}

export interface Analysis {
  proposals: ProposalView[];
  analyzed: { period: { from: string; to: string }; calls: number; spend_micro_usd: number; models: number; keys: number; not_written: number; already_rejected: number };
}

/** Reads the last `days` days and writes what it finds; 404 for an org the caller is not a member of. */
export function analyze(ctx: Context, accountId: string, input: AnalyzeInput): Analysis {
  if (input.orgId !== null) requireOrgRole(ctx, input.orgId, accountId, "member");
  const now = ctx.clock.now();
  const period = { from: now - input.days * DAY_MS, to: now };
  const usage = inferenceUsageByModel(ctx, accountId, period);
  const runs = latestEvalRuns(ctx, accountId);
  const caps = keyCapDrafts(ctx, accountId, period);
  // The most at stake first, so the cap leaves out the least useful.
  const drafts = [...switchDrafts(ctx, accountId, usage, runs), ...caps.drafts].sort((a, b) => b.weight - a.weight);

  return ctx.tx.run(() => {
    let open = openCount(ctx, accountId);
    let notWritten = 0;
    let alreadyRejected = 0;
    const rejected = rejectedChanges(ctx, accountId);
    const written: ProposalRow[] = [];
    for (const draft of drafts) {
      if (rejected.has(changeKey(draft.kind, draft.target, JSON.stringify(draft.change)))) {
        alreadyRejected++;
        continue;
      }
      const replaces = hasOpen(ctx, accountId, draft.kind, draft.target);
      if (!replaces && open >= OPEN_PROPOSALS_CAP) {
        notWritten++;
        continue;
      }
      const id = newId("apr");
      supersedeOpen(ctx, accountId, draft.kind, draft.target, id, now);
      written.push(insertProposal(ctx, { id, accountId, orgId: input.orgId, draft, period, now }));
      if (!replaces) open++;
    }
    return {
      proposals: written.map(proposalView),
      analyzed: {
        period: { from: isoTime(period.from), to: isoTime(period.to) },
        calls: usage.reduce((n, u) => n + u.calls, 0),
        spend_micro_usd: usage.reduce((n, u) => n + u.spend_micro_usd, 0),
        models: usage.length,
        keys: caps.keys,
        not_written: notWritten,
        already_rejected: alreadyRejected,
      },
    };
  });
}

export function listProposals(ctx: Context, accountId: string, filter: { status?: ProposalStatus; limit: number }): ProposalView[] {
  return listVisible(ctx, accountId, filter).map(proposalView);
}

export function getProposal(ctx: Context, accountId: string, id: string): ProposalView {
  return proposalView(visibleProposal(ctx, accountId, id));
}

/** The proposal, when `actorId` may decide on it and it is still open. */
function decidable(ctx: Context, actorId: string, id: string): ProposalRow {
  const row = visibleProposal(ctx, actorId, id);
  requireActingRole(ctx, actorId, row.org_id, "admin");
  if (row.status !== "open") throw conflict("proposal_not_open", `the proposal is ${row.status}; only an open proposal can be adopted or rejected`);
  return row;
}

/**
 * Applies the proposal's change to its account through the owning area and records who
 * adopted it, in one transaction: a refusal (403, 409 proposal_regressed, proposal_stale,
 * proposal_not_open) changes nothing.
 */
export function adoptProposal(ctx: Context, actorId: string, id: string): ProposalView {
  return ctx.tx.run(() => {
    const row = decidable(ctx, actorId, id);
    const applied = row.kind === "switch_model" ? adoptSwitch(ctx, row) : adoptKeyCap(ctx, row);
    markAdopted(ctx, row.id, actorId, applied, ctx.clock.now());
    return proposalView(getRow(ctx, row.id));
  });
}

export function rejectProposal(ctx: Context, actorId: string, id: string, reason: string | null): ProposalView {
  return ctx.tx.run(() => {
    const row = decidable(ctx, actorId, id);
    markRejected(ctx, row.id, actorId, reason?.trim() || null, ctx.clock.now());
    return proposalView(getRow(ctx, row.id));
  });
}
