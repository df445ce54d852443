/**
 * TypeBox models of /v1/runs: the run list (named-key `runs`, spec §2.1), one run, its proof and
 * its evidence mapping. Closed objects; receipt kinds and statuses are open strings (new billable
 * kinds appear without a schema change), frameworks and control statuses are closed sets.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { AnchorBlockSchema } from "../anchors/index.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import { FRAMEWORKS } from "./audit.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 200, description: "the run id the client sent as svc_run_id" }) });

/** audit.ts FRAMEWORKS as a schema (the handler's return type holds the two lists together). */
export const Framework = t.Union([t.Literal("eu_ai_act"), t.Literal("soc2")]);

export const AuditQuery = t.Object({
  // The handler checks the value and names `framework` in its 400 (a schema check would name `query.framework`),
  // so the closed set is stated here for the document only: TypeBox does not enforce `enum` on a string.
  framework: t.Optional(t.String({ maxLength: 40, enum: [...FRAMEWORKS], description: `${FRAMEWORKS.join(" or ")}; absent (or empty): both` })),
});

const runFields = {
  run_id: t.String(),
  receipt_count: Int({ minimum: 1 }),
  cost_micro_usd: MicroUsd(),
  first_receipt_at: Time,
  last_receipt_at: Time,
  kinds: t.Array(t.String(), { description: "receipt kinds in the run, sorted" }),
  anchored: t.Boolean({ description: "a root over all the run's receipts, as they are now, has an anchor in status anchored" }),
};

export const RunSummary = t.Object(runFields, closed);

export const RunList = t.Object({ runs: t.Array(RunSummary, { maxItems: 200 }) }, closed);

export const RunDetail = t.Object(
  {
    ...runFields,
    root: Nullable(t.String({ pattern: "^[0-9a-f]{64}$", description: "the newest root over all current receipts (from a proof request), or null" })),
    receipts: t.Array(t.Object({ id: t.String(), kind: t.String(), status: t.String(), cost_micro_usd: MicroUsd(), created_at: Time }, closed)),
  },
  closed,
);

export const RunProof = t.Object(
  {
    run_id: t.String(),
    root: Hex64,
    tree_size: Int({ minimum: 1 }),
    commitment_alg: t.String(),
    merkle_alg: t.String(),
    receipts: t.Array(
      t.Object(
        {
          index: Int({ minimum: 0 }),
          id: t.String(),
          receipt: Statement,
          signature: Signature,
          signer: Address,
          leaf_hash: Hex64,
          proof: t.Array(Hex64, { description: "inclusion proof: sibling hashes, leaf to root (RFC 9162 §2.1.3)" }),
        },
        closed,
      ),
    ),
    anchor: AnchorBlockSchema,
    verify: t.String(),
  },
  closed,
);

// ---- the evidence mapping ----------------------------------------------------------------

const KeyControls = t.Object(
  {
    key_id: t.String(),
    kind: t.Union([t.Literal("standard"), t.Literal("delegated"), t.Literal("mandate"), t.Literal("ghost")]),
    scopes: t.Array(t.String()),
    monthly_cap_micro_usd: Nullable(MicroUsd()),
    total_cap_micro_usd: Nullable(MicroUsd()),
    circuit_breaker_micro_usd_per_minute: MicroUsd({ description: "the breaker in force: the key's own, else the deployment default; 0 = off" }),
    allowed_models: Nullable(t.Array(t.String())),
    allowed_services: Nullable(t.Array(t.String())),
    expires_at: Nullable(Time),
    revoked: t.Boolean(),
    frozen: t.Boolean(),
    delegated_from: Nullable(t.String()),
    mandate: Nullable(t.Object({ id: t.String(), purpose: t.String(), budget_micro_usd: MicroUsd(), valid_until: Time }, closed)),
  },
  closed,
);

export const RunEvidence = t.Object(
  {
    receipts: t.Object(
      {
        count: Int({ minimum: 1 }),
        kinds: t.Array(t.String()),
        statuses: t.Record(t.String(), Int({ minimum: 1 }), { description: "receipts per status" }),
        cost_micro_usd: MicroUsd(),
        first_receipt_at: Time,
        last_receipt_at: Time,
        metadata_only: t.Literal(true),
      },
      closed,
    ),
    signatures: t.Object({ scheme: t.String(), signers: t.Array(Address), valid: Int({ minimum: 0 }), invalid: Int({ minimum: 0 }) }, closed),
    anchor: Nullable(AnchorBlockSchema),
    anchored: t.Boolean(),
    spend_controls: t.Object(
      { billing_enforced: t.Boolean(), note: t.String(), keys: t.Array(KeyControls), session_initiated_receipts: Int({ minimum: 0 }) },
      closed,
    ),
  },
  closed,
);

export const ControlMapping = t.Object(
  {
    id: t.String(),
    title: t.String(),
    status: t.Union([t.Literal("evidence_present"), t.Literal("partial"), t.Literal("not_evidenced")]),
    evidence: t.Array(t.String()),
    gaps: t.Array(t.String()),
  },
  closed,
);

export const RunAudit = t.Object(
  {
    run_id: t.String(),
    kind: t.Literal("evidence_mapping"),
    certification: t.Literal(false),
    disclaimer: t.String(),
    generated_at: Time,
    evidence: RunEvidence,
    frameworks: t.Array(
      t.Object({ framework: Framework, name: t.String(), controls: t.Array(ControlMapping) }, closed),
      { minItems: 1 },
    ),
  },
  closed,
);
