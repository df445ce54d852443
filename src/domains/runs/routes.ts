/**
 * /v1/runs (session): the account's runs, one run with its receipts, a run's Merkle proof
 * (anchoring its root), and its evidence mapping. Rules: service.ts, audit.ts; reference:
 * docs/receipts.md.
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { runAudit } from "./audit.ts";
import * as M from "./models.ts";
import { getRun, listRuns, runProof } from "./service.ts";

const tags = ["runs"];
const security = [{ session: [] }];

export function runRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/runs" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => namedList("runs", listRuns(ctx, principal.accountId)), {
      response: { 200: M.RunList },
      detail: { summary: "The account's runs, newest activity first, at most 200 ({runs: [...]})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getRun(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.RunDetail },
      detail: { summary: "One run: totals and its receipts in order (another account's run answers 404)", tags, security },
    })
    .post("/:id/proof", ({ principal, params }) => runProof(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.RunProof },
      detail: { summary: "Merkle root (RFC 6962) over the run's receipts, each receipt's inclusion proof, and the root's anchors (anchors it if new)", tags, security },
    })
    .post("/:id/audit", ({ principal, params, query }) => runAudit(ctx, principal.accountId, params.id, query.framework), {
      params: M.Params,
      query: M.AuditQuery,
      response: { 200: M.RunAudit },
      detail: { summary: "The run's evidence mapped to a framework's controls (eu_ai_act, soc2): an evidence mapping, not a certification", tags, security },
    });
}
