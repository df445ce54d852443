/**
 * /v1/runs (session): the account's runs, one run with its receipts, a run's Merkle proof
 * (anchoring its root), and its evidence mapping. Rules: service.ts, audit.ts; reference:
 * docs/receipts.md.
 */
import { Elysia, t } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { FRAMEWORKS, runAudit } from "./audit.ts";
import { getRun, listRuns, runProof } from "./service.ts";

const tags = ["runs"];
const security = [{ session: [] }];

const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 200, description: "the run id the client sent as svc_run_id" }) });

export function runRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/runs" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => namedList("runs", listRuns(ctx, principal.accountId)), {
      detail: { summary: "The account's runs, newest activity first, at most 200 ({runs: [...]})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getRun(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "One run: totals and its receipts in order (another account's run answers 404)", tags, security },
    })
    .post("/:id/proof", ({ principal, params }) => runProof(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "Merkle root (RFC 6962) over the run's receipts, each receipt's inclusion proof, and the root's anchors (anchors it if new)", tags, security },
    })
    .post("/:id/audit", ({ principal, params, query }) => runAudit(ctx, principal.accountId, params.id, query.framework), {
      params: Params,
      query: t.Object({
        framework: t.Optional(t.String({ maxLength: 40, description: `${FRAMEWORKS.join(" or ")}; absent: both` })),
      }),
      detail: { summary: "The run's evidence mapped to a framework's controls (eu_ai_act, soc2): an evidence mapping, not a certification", tags, security },
    });
}
