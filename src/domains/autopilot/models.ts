/**
 * TypeBox models of /v1/autopilot: closed request bodies, and the proposal as served — one
 * shape per kind, so the OpenAPI document says exactly what each kind's evidence holds (numbers
 * and ids, never content) and what adopting it changes. docs/autopilot.md.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { ANALYZE_DAYS, LIST_LIMIT, REJECT_REASON_MAX } from "./limits.ts";

const closed = { additionalProperties: false } as const;

// Spelt out (not mapped from PROPOSAL_STATUSES) so the static type keeps each literal.
const Status = t.Union([t.Literal("open"), t.Literal("adopted"), t.Literal("rejected"), t.Literal("superseded")]);
const Time = t.String({ format: "date-time" });
const Count = Int({ minimum: 0 });

export const AnalyzeBody = t.Object(
  {
    org_id: t.Optional(
      t.String({ minLength: 1, maxLength: 100, description: "share the proposals with this org (you must be a member); adopting or rejecting them then needs the org's admin role" }),
    ),
    days: t.Optional(Int({ minimum: ANALYZE_DAYS.min, maximum: ANALYZE_DAYS.max, description: `how far back to look, in days (default ${ANALYZE_DAYS.default})` })),
  },
  closed,
);

export const RejectBody = t.Object({ reason: t.Optional(t.String({ maxLength: REJECT_REASON_MAX, description: "why, for the record" })) }, closed);

export const ProposalParams = t.Object({ id: t.String({ maxLength: 100 }) });

export const ListQuery = t.Object({
  status: t.Optional(t.Union(Status.anyOf, { description: "only proposals in this status" })),
  // limit stays a string: parseLimit reads it (400 naming `limit`; above the maximum clamps).
  limit: t.Optional(t.String({ description: `${LIST_LIMIT.min}–${LIST_LIMIT.max}, default ${LIST_LIMIT.default}; larger values are clamped` })),
});

export const Period = t.Object({ from: Time, to: Time }, { ...closed, description: "the period the evidence covers: from inclusive, to exclusive" });

const Price = t.Object(
  { input_micro_usd_per_mtok: MicroUsd(), output_micro_usd_per_mtok: MicroUsd() },
  { ...closed, description: "the catalogue's prices per million tokens" },
);

const PassRate = t.Number({ minimum: 0, maximum: 1 });

const EvalSide = t.Object(
  {
    run_id: t.String(),
    pass_rate: PassRate,
    passed: Count,
    total: Count,
    passed_threshold: t.Boolean(),
    regression: t.Boolean({ description: "the evals area flagged this run as a regression" }),
    run_at: Time,
  },
  { ...closed, description: "the latest completed run of the eval on this model" },
);

const EvalEvidence = t.Object({ eval_id: t.String(), threshold: PassRate, model: EvalSide, candidate: EvalSide }, closed);

const SwitchEvidence = t.Object(
  {
    model: t.String({ description: "the model the account used" }),
    candidate: t.String({ description: "the cheaper chat model proposed instead" }),
    calls: Count,
    spend_micro_usd: MicroUsd({ description: "spent on `model` over the period" }),
    input_tokens: Count,
    output_tokens: Count,
    model_price: Price,
    candidate_price: Price,
    estimated_candidate_cost_micro_usd: MicroUsd({ description: "the period's tokens at the candidate's prices" }),
    estimated_saving_micro_usd: MicroUsd({ description: "spend − estimated candidate cost, at least 0" }),
    evals: t.Array(EvalEvidence, { minItems: 1, description: "every eval both models have a completed run of: the latest run of each" }),
    regression: t.Boolean({ description: "true when the candidate's latest run of any of these evals is flagged a regression or passes less than the model's; such a proposal cannot be adopted" }),
  },
  closed,
);

const KeyCapEvidence = t.Object(
  {
    key_id: t.String(),
    key_prefix: t.String(),
    months: t.Array(t.Object({ month: t.String({ pattern: "^\\d{4}-\\d{2}$" }), spent_micro_usd: MicroUsd() }, closed), {
      description: "the key's spend (its delegated keys' included) in each UTC month the period touches",
    }),
    highest_month_micro_usd: MicroUsd(),
    regression: t.Literal(false),
  },
  closed,
);

const base = {
  id: t.String(),
  status: Status,
  account_id: t.String({ description: "the analysing account: its usage is the evidence, and the change applies to it" }),
  org_id: Nullable(t.String({ description: "the org it is shared with (decisions need its admin role); null: personal" })),
  target: t.String({ description: "what it is about (model:<id>, key:<id>); an analysis replaces an open proposal of the same kind and target" }),
  summary: t.String(),
  period: Period,
  created_at: Time,
  adopted_by: Nullable(t.String({ description: "the account that adopted it" })),
  adopted_at: Nullable(Time),
  rejected_by: Nullable(t.String()),
  rejected_at: Nullable(Time),
  reject_reason: Nullable(t.String()),
  superseded_by: Nullable(t.String({ description: "the proposal of a later analysis that replaced it" })),
  superseded_at: Nullable(Time),
};

const SwitchProposal = t.Object(
  {
    ...base,
    kind: t.Literal("switch_model"),
    evidence: SwitchEvidence,
    change: t.Object({ action: t.Literal("route_model"), from: t.String(), to: t.String() }, { ...closed, description: "the account's requests for `from` are served by `to`" }),
    applied: Nullable(t.Object({ from: t.String(), to: t.String(), previous_to: Nullable(t.String({ description: "the route it replaced, if any" })) }, closed)),
  },
  closed,
);

const KeyCapProposal = t.Object(
  {
    ...base,
    kind: t.Literal("set_key_cap"),
    evidence: KeyCapEvidence,
    change: t.Object({ action: t.Literal("set_key_monthly_cap"), key_id: t.String(), monthly_cap_micro_usd: MicroUsd({ minimum: 1 }) }, closed),
    applied: Nullable(t.Object({ key_id: t.String(), monthly_cap_micro_usd: MicroUsd(), previous_monthly_cap_micro_usd: Nullable(MicroUsd()) }, closed)),
  },
  closed,
);

export const Proposal = t.Union([SwitchProposal, KeyCapProposal]);

export const ProposalList = t.Object(
  { proposals: t.Array(Proposal, { maxItems: LIST_LIMIT.max, description: "the caller's own and those shared with its orgs, newest first" }) },
  closed,
);

export const Analysis = t.Object(
  {
    proposals: t.Array(Proposal, { description: "the proposals this analysis wrote (each replaces an open one of the same kind and target)" }),
    analyzed: t.Object(
      {
        period: Period,
        calls: Count,
        spend_micro_usd: MicroUsd({ description: "inference spend over the period" }),
        models: Count,
        keys: Count,
        not_written: Count,
        already_rejected: Count,
      },
      {
        ...closed,
        description:
          "what was read: inference calls, their spend, models used and keys looked at; not_written counts proposals left out at the open-proposal cap, already_rejected those not made again because the same change was rejected before",
      },
    ),
  },
  closed,
);
