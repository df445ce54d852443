/**
 * /v1/mandates (session): grant, list, revoke and prove bounded spending mandates. Thin: a
 * closed schema checks the body, one service call does the work (rules in service.ts,
 * docs/mandates.md).
 */
import { Elysia, t } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { namedList } from "../../core/envelopes.ts";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { parseScopes } from "../keys/index.ts";
import { createMandate, listMandates, mandateProof, revokeMandate } from "./service.ts";

const tags = ["mandates"];
const security = [{ session: [] }];

const TIME_ERROR = "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z";
const Time = (description: string) => t.String({ format: "date-time", maxLength: 40, error: TIME_ERROR, description });
const Names = (what: string) =>
  t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: `the only ${what} the mandate's key may use; absent or null: any` });
// Canonical JSON (the proof) holds safe integers only; nothing larger is money here anyway.
const Budget = (options: { minimum: number; description: string }) => MicroUsd(options);

/** TypeBox's date-time format also takes a bare date; a mandate's window needs an instant. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
function instant(field: string, value: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value.toUpperCase()) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidField(field, TIME_ERROR);
  return ms;
}

const Params = t.Object({ id: t.String({ maxLength: 100 }) });

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
        body: t.Object(
          {
            purpose: t.String({ minLength: 1, maxLength: 500, description: "what the agent may spend the budget on (shown in the proof)" }),
            budget_micro_usd: Budget({ minimum: 1, description: "total the mandate may ever spend (the key's lifetime cap)" }),
            scopes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: 'scope names (docs/scopes.md); absent: ["*"]' })),
            allowed_models: t.Optional(Nullable(Names("models"))),
            allowed_services: t.Optional(Nullable(Names("services"))),
            valid_from: t.Optional(Nullable(Time("when spending may start; absent: now"))),
            valid_until: Time("when the mandate ends; after valid_from, at most 366 days later"),
            monthly_cap_micro_usd: t.Optional(Nullable(Budget({ minimum: 1, description: "an extra cap per UTC month, at most the budget" }))),
            name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Grant a bounded spending mandate; mints its constrained key (the sk-svc_ secret is returned once)", tags, security },
      },
    )
    .get("", ({ principal }) => namedList("mandates", listMandates(ctx, principal.accountId)), {
      detail: { summary: "The account's mandates, newest first, at most 200 ({mandates: [...]})", tags, security },
    })
    .delete("/:id", ({ principal, params }) => revokeMandate(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "Revoke a mandate and its key (idempotent)", tags, security },
    })
    .post("/:id/proof", ({ principal, params }) => mandateProof(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "A signed statement (EIP-191) of the mandate's terms and its spend so far", tags, security },
    });
}
