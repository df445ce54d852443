/**
 * TypeBox models of /v1/guardrails and /v1/policies: closed request bodies (an unknown field is
 * refused and named) and the shapes served. A detector's `options` depend on its type and are
 * checked by that detector (detectors/<type>.ts), with the field path in the error.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { GUARDRAILS_PER_ACCOUNT, MAX_DETECTORS } from "./service.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const DetectorType = t.Union([t.Literal("pii"), t.Literal("secrets"), t.Literal("prompt_injection"), t.Literal("blocklist")], {
  description: "pii: emails, phone numbers, card numbers (Luhn), IBANs (mod 97); secrets: private keys, JWTs, API keys and tokens, assigned secrets; prompt_injection: known attack phrasings (heuristic); blocklist: options.terms",
});
const Direction = t.Union([t.Literal("input"), t.Literal("output"), t.Literal("both")], { description: "input: the prompt, before any upstream sees it; output: the reply (streams included)" });
const Action = t.Union([t.Literal("allow"), t.Literal("redact"), t.Literal("block")], { description: "allow: count matches only; redact: replace them with [REDACTED:<kind>]; block: refuse the call (400 guardrail_blocked), billing nothing" });

export const DetectorSpec = t.Object(
  {
    type: DetectorType,
    direction: Direction,
    action: Action,
    options: t.Optional(t.Record(t.String(), t.Unknown(), { description: "pii/secrets: {kinds?: [...]} to narrow the family; blocklist: {terms: [...], whole_word?: bool}; prompt_injection: none" })),
  },
  closed,
);

const Ids = (what: string) => t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: `only calls with these ${what}; absent or null: all` });

export const GuardrailBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, pattern: "\\S", error: "must be 1 to 100 characters, not all whitespace" }),
    detectors: t.Array(DetectorSpec, { minItems: 1, maxItems: MAX_DETECTORS, description: `1-${MAX_DETECTORS} detectors` }),
    scope: t.Optional(Nullable(t.Object({ keys: t.Optional(Nullable(Ids("API key ids (key_…)"))), models: t.Optional(Nullable(Ids("model ids"))) }, closed))),
  },
  closed,
);

export const GuardrailParams = t.Object({ id: t.String({ maxLength: 100 }) });

export const Guardrail = t.Object({
  id: t.String(),
  name: t.String(),
  detectors: t.Array(t.Object({ type: t.String(), direction: t.String(), action: t.String(), options: t.Record(t.String(), t.Unknown()) })),
  scope: t.Object({ keys: Nullable(t.Array(t.String())), models: Nullable(t.Array(t.String())) }),
  created_at: Time,
});

export const GuardrailList = t.Object({ guardrails: t.Array(Guardrail, { description: `every guardrail of the account (at most ${GUARDRAILS_PER_ACCOUNT}), newest first` }) });
export const GuardrailDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) });

export const FindingsQuery = t.Object({ limit: t.Optional(t.String({ description: "receipts scanned, newest first: 1-1000, default 200" })) });

const Finding = t.Object({ guardrail_id: Nullable(t.String()), detector: t.String(), direction: t.String(), action: t.String(), count: Int({ minimum: 0 }) });

export const FindingEvent = t.Object({
  at: Time,
  kind: t.Union([t.Literal("receipt"), t.Literal("blocked")], { description: "receipt: a billed call whose receipt carries guardrail findings; blocked: a call refused by a block rule (no receipt: nothing was billed)" }),
  receipt_id: Nullable(t.String()),
  model: Nullable(t.String()),
  key_id: Nullable(t.String()),
  guardrail_ids: t.Array(t.String()),
  findings: t.Array(Finding),
});

const Totals = t.Object({
  redacted: Int({ minimum: 0, description: "matches replaced, both directions" }),
  allowed: Int({ minimum: 0, description: "matches counted by allow rules" }),
  blocked: Int({ minimum: 0, description: "calls refused" }),
  by_detector: t.Record(t.String(), Int({ minimum: 0 })),
  by_direction: t.Object({ input: Int({ minimum: 0 }), output: Int({ minimum: 0 }) }),
});

export const FindingsList = t.Object({
  events: t.Array(FindingEvent),
  enforced: t.Boolean({ description: "the account has at least one guardrail" }),
  scanned_receipts: Int({ minimum: 0 }),
  blocked: Int({ minimum: 0, description: "blocked calls listed (the newest, at most limit)" }),
  totals: Totals,
  note: t.String(),
});

const Policy = t.Object({
  type: t.Union([t.Literal("guardrail"), t.Literal("key_scopes"), t.Literal("model_route")]),
  id: t.String({ description: "the guardrail id, the key id, or the model routed" }),
  name: Nullable(t.String()),
  applies_to: t.Object({ keys: Nullable(t.Array(t.String())), models: Nullable(t.Array(t.String())) }),
  rules: t.Array(t.Record(t.String(), t.Unknown()), { description: "guardrail: its detectors; key_scopes: {scopes, allowed_models?, monthly_cap_micro_usd?}; model_route: {to}" }),
});

export const PolicyList = t.Object({ policies: t.Array(Policy) });
