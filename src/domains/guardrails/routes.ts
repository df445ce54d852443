/**
 * /v1/guardrails (session): create, list, delete guardrails, and their findings; /v1/policies:
 * the account's effective policies. Thin: the schemas check the body, one service call does
 * the work (rules in service.ts, enforcement in guard.ts, docs/guardrails.md).
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { FINDINGS_LIMIT, guardrailFindings } from "./findings.ts";
import * as M from "./models.ts";
import { effectivePolicies } from "./policies.ts";
import { createGuardrail, deleteGuardrail, listGuardrails } from "./service.ts";

const security = [{ session: [] }];

export function guardrailRoutes(ctx: Context) {
  const tags = ["guardrails"];
  return new Elysia({ prefix: "/v1/guardrails" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return createGuardrail(ctx, principal.accountId, body);
      },
      {
        body: M.GuardrailBody,
        response: { 201: M.Guardrail, ...errors(409) },
        detail: { summary: "Create a guardrail: detectors (pii, secrets, prompt_injection, blocklist), each per direction with action allow, redact or block; enforced on every inference call in its scope", tags, security },
      },
    )
    .get("", ({ principal }) => namedList("guardrails", listGuardrails(ctx, principal.accountId)), {
      response: { 200: M.GuardrailList },
      detail: { summary: "The account's guardrails, newest first ({guardrails: [...]})", tags, security },
    })
    .get("/findings", ({ principal, query }) => guardrailFindings(ctx, principal.accountId, parseLimit(query.limit, FINDINGS_LIMIT)), {
      query: M.FindingsQuery,
      response: { 200: M.FindingsList },
      detail: { summary: "What the guardrails found and blocked, from the newest receipts' guardrail stamps and the blocked calls; counts only, never content", tags, security },
    })
    .delete("/:id", ({ principal, params }) => deleteGuardrail(ctx, principal.accountId, params.id), {
      params: M.GuardrailParams,
      response: { 200: M.GuardrailDeleted, ...errors(404) },
      detail: { summary: "Delete a guardrail: calls are no longer checked by it (receipts it stamped keep its id)", tags, security },
    });
}

export function policyRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/policies" }).use(guards.session(ctx)).get("", ({ principal }) => namedList("policies", effectivePolicies(ctx, principal.accountId)), {
    response: { 200: M.PolicyList },
    detail: { summary: "The account's effective policies: guardrails, each live key's scopes and spend controls, model routes ({policies: [...]})", tags: ["guardrails"], security },
  });
}
