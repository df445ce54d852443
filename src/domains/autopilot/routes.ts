/**
 * /v1/autopilot (session): analyse the account's usage into proposals, read them, adopt or
 * reject one. Thin: a closed schema checks the input, one service call does the work (rules
 * in service.ts, docs/autopilot.md).
 */
import { Elysia, t } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { ANALYZE_DAYS, LIST_LIMIT } from "./limits.ts";
import * as M from "./models.ts";
import { adoptProposal, analyze, getProposal, listProposals, rejectProposal } from "./service.ts";

const tags = ["autopilot"];
const security = [{ session: [] }];

export function autopilotRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/autopilot" })
    .use(guards.session(ctx))
    .post(
      "/analyze",
      ({ principal, body, set }) => {
        const analysis = analyze(ctx, principal.accountId, { orgId: body?.org_id ?? null, days: body?.days ?? ANALYZE_DAYS.default });
        set.status = 201;
        return analysis;
      },
      {
        body: t.Optional(M.AnalyzeBody),
        // 404: org_id names an org the caller is not a member of (or none).
        response: { 201: M.Analysis, ...errors(404) },
        detail: {
          summary: "Analyse the account's usage, key spend and eval results into proposals (each replaces an open one of the same kind and target)",
          tags,
          security,
        },
      },
    )
    .get(
      "/proposals",
      ({ principal, query }) => namedList("proposals", listProposals(ctx, principal.accountId, { status: query.status, limit: parseLimit(query.limit, LIST_LIMIT) })),
      {
        query: M.ListQuery,
        response: { 200: M.ProposalList },
        detail: { summary: "The account's proposals and those shared with its orgs, newest first ({proposals: [...]})", tags, security },
      },
    )
    .get("/proposals/:id", ({ principal, params }) => getProposal(ctx, principal.accountId, params.id), {
      params: M.ProposalParams,
      response: { 200: M.Proposal },
      detail: { summary: "One proposal: its evidence, its change and its decision", tags, security },
    })
    .post("/proposals/:id/adopt", ({ principal, params }) => adoptProposal(ctx, principal.accountId, params.id), {
      params: M.ProposalParams,
      // 403 insufficient_role: an org's proposal needs its admin role. 409 proposal_regressed,
      // proposal_stale (the evidence, re-read now, no longer holds), proposal_not_open.
      response: { 200: M.Proposal, ...errors(409) },
      detail: { summary: "Adopt a proposal: its change is applied to the account now (admin of the account; refused when the evidence shows a regression)", tags, security },
    })
    .post("/proposals/:id/reject", ({ principal, params, body }) => rejectProposal(ctx, principal.accountId, params.id, body?.reason ?? null), {
      params: M.ProposalParams,
      body: t.Optional(M.RejectBody),
      // 403 insufficient_role, 409 proposal_not_open.
      response: { 200: M.Proposal, ...errors(409) },
      detail: { summary: "Reject a proposal (admin of the account), with an optional reason", tags, security },
    });
}
