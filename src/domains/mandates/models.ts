/**
 * TypeBox models of the /v1/mandates routes: a closed request body (an unknown field is
 * refused and named, never stripped) and the exact shapes served (service.ts mandateView and
 * mandateProof), so the OpenAPI document describes what is served.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { MANDATES_LIST_CAP, MAX_VALIDITY_DAYS } from "./service.ts";

const closed = { additionalProperties: false } as const;

export const TIME_ERROR = "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z";
/** An instant: TypeBox's date-time format alone also takes a bare date or a time without a zone. */
export const RFC3339 = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$";

const TimeInput = (description: string) => t.String({ format: "date-time", pattern: RFC3339, maxLength: 40, error: TIME_ERROR, description });
const Names = (what: string) =>
  t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: `the only ${what} the mandate's key may use; absent or null: any` });
// Canonical JSON (the proof) holds safe integers only; MicroUsd's maximum keeps money well within them.
const Budget = (options: { minimum: number; description: string }) => MicroUsd(options);

export const MandateBody = t.Object(
  {
    purpose: t.String({
      minLength: 1,
      maxLength: 500,
      pattern: "\\S",
      error: "must be 1 to 500 characters, not all whitespace",
      description: "what the agent may spend the budget on (shown in the proof); surrounding whitespace is trimmed",
    }),
    budget_micro_usd: Budget({ minimum: 1, description: "total the mandate may ever spend (the key's lifetime cap)" }),
    scopes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: 'scope names (docs/scopes.md); ["*"] alone or absent: every scope' })),
    allowed_models: t.Optional(Nullable(Names("models"))),
    allowed_services: t.Optional(Nullable(Names("services"))),
    valid_from: t.Optional(Nullable(TimeInput(`when spending may start; absent: now; not more than 5 minutes past, nor more than ${MAX_VALIDITY_DAYS} days ahead`))),
    valid_until: TimeInput(`when the mandate ends; after valid_from, at most ${MAX_VALIDITY_DAYS} days later`),
    monthly_cap_micro_usd: t.Optional(Nullable(Budget({ minimum: 1, description: "an extra cap per UTC month, at most the budget" }))),
    name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  },
  closed,
);

export const MandateParams = t.Object({ id: t.String({ maxLength: 100 }) });

const Time = t.String({ format: "date-time" });

export const MandateStatus = t.Union([t.Literal("active"), t.Literal("expired"), t.Literal("revoked"), t.Literal("exhausted"), t.Literal("not_yet_valid")]);

const mandateFields = {
  id: t.String(),
  key_id: t.String({ description: "the key that spends under the mandate (its replacement, if the key was rotated)" }),
  key_prefix: t.String(),
  name: Nullable(t.String()),
  purpose: t.String(),
  budget_micro_usd: MicroUsd(),
  monthly_cap_micro_usd: Nullable(MicroUsd()),
  spent_micro_usd: MicroUsd(),
  held_micro_usd: MicroUsd({ description: "reserved for work in flight; it becomes spend or comes back when the work settles" }),
  remaining_micro_usd: MicroUsd({ description: "budget − spent, at least 0" }),
  scopes: t.Array(t.String()),
  allowed_models: Nullable(t.Array(t.String())),
  allowed_services: Nullable(t.Array(t.String())),
  valid_from: Time,
  valid_until: Time,
  status: MandateStatus,
  revoked_at: Nullable(Time),
  created_at: Time,
};

export const Mandate = t.Object(mandateFields, closed);

export const CreatedMandate = t.Object({ ...mandateFields, key: t.String({ pattern: "^sk-svc_", description: "the mandate key's sk-svc_ secret; shown this once" }) }, closed);

export const MandateList = t.Object({ mandates: t.Array(Mandate, { maxItems: MANDATES_LIST_CAP, description: `newest first, at most ${MANDATES_LIST_CAP}` }) }, closed);

/** What the proof's statement decodes to (canonical JSON, base64url). */
export const ProofPayload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("mandate-proof"),
    mandate_id: t.String(),
    account_id: t.String(),
    key_id: t.String(),
    purpose: t.String(),
    budget_micro_usd: MicroUsd(),
    monthly_cap_micro_usd: Nullable(MicroUsd()),
    spent_micro_usd: MicroUsd(),
    remaining_micro_usd: MicroUsd(),
    scopes: t.Array(t.String()),
    allowed_models: Nullable(t.Array(t.String())),
    allowed_services: Nullable(t.Array(t.String())),
    valid_from: Time,
    valid_until: Time,
    status: MandateStatus,
    issued_at: Time,
  },
  closed,
);

export const MandateProof = t.Object(
  {
    statement: t.String({ pattern: "^[A-Za-z0-9_-]+$", description: "base64url of the payload's canonical JSON" }),
    signature: t.String({ pattern: "^0x[0-9a-fA-F]{130}$", description: "EIP-191 personal_sign of the statement string: r ‖ s ‖ v" }),
    signer: t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "the service's signer address" }),
    payload: ProofPayload,
  },
  closed,
);

