/**
 * /v1/mandates (session): grant, list, revoke and prove bounded spending mandates. Thin: a
 * closed schema checks the body, one service call does the work (rules in service.ts,
 * docs/mandates.md).
 */
import { Elysia } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { namedList } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { parseScopes } from "../keys/index.ts";
import * as M from "./models.ts";
import { createMandate, listMandates, mandateProof, revokeMandate } from "./service.ts";

const tags = ["mandates"];
const security = [{ session: [] }];

/** The schema's pattern says the same; this keeps the check where the value is read. */
const RFC3339 = new RegExp(M.RFC3339);
function instant(field: string, value: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value.toUpperCase()) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidField(field, M.TIME_ERROR);
  return ms;
}

export function mandateRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/mandates" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const { mandate, key } = createMandate(ctx, principal.accountId, {
          name: body.name ?? null,
          purpose: body.purpose,
          budget: body.budget_micro_usd,
          monthlyCap: body.monthly_cap_micro_usd ?? null,
          scopes: parseScopes(body.scopes),
          allowedModels: body.allowed_models ?? null,
          allowedServices: body.allowed_services ?? null,
          validFrom: body.valid_from == null ? null : instant("valid_from", body.valid_from),
          validUntil: instant("valid_until", body.valid_until),
        });
        set.status = 201;
        return { ...mandate, key };
      },
      {
        body: M.MandateBody,
        response: { 201: M.CreatedMandate },
        detail: { summary: "Grant a bounded spending mandate; mints its constrained key (the sk-svc_ secret is returned once)", tags, security },
      },
    )
    .get("", ({ principal }) => namedList("mandates", listMandates(ctx, principal.accountId)), {
      response: { 200: M.MandateList },
      detail: { summary: "The account's mandates, newest first, at most 200 ({mandates: [...]})", tags, security },
    })
    .delete("/:id", ({ principal, params }) => revokeMandate(ctx, principal.accountId, params.id), {
      params: M.MandateParams,
      response: { 200: M.Mandate },
      detail: { summary: "Revoke a mandate and its key (idempotent)", tags, security },
    })
    .post("/:id/proof", ({ principal, params }) => mandateProof(ctx, principal.accountId, params.id), {
      params: M.MandateParams,
      response: { 200: M.MandateProof },
      detail: { summary: "A signed statement (EIP-191) of the mandate's terms and its spend so far", tags, security },
    });
}
