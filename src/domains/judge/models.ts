/**
 * TypeBox models of the judge routes: closed request bodies (an unknown field is refused and
 * named) and the exact shapes served (service.ts builds them), so the OpenAPI document
 * describes what is served. Sizes come from limits.ts; docs/judge.md explains them.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;

const Question = t.String({ minLength: 1, maxLength: L.MAX_QUESTION_CHARS, description: `what the jurors judge: 1-${L.MAX_QUESTION_CHARS} characters` });
const Candidates = t.Array(t.String({ minLength: 1, maxLength: L.MAX_CANDIDATE_CHARS }), {
  minItems: L.MIN_CANDIDATES,
  maxItems: L.MAX_CANDIDATES,
  description: `${L.MIN_CANDIDATES}-${L.MAX_CANDIDATES} answers to choose among, labelled A, B, … in this order; absent: the jurors answer the question yes or no`,
});
const Rubric = t.String({ minLength: 1, maxLength: L.MAX_RUBRIC_CHARS, description: `how to judge, 1-${L.MAX_RUBRIC_CHARS} characters` });

export const CreateBody = t.Object(
  {
    question: Question,
    candidates: t.Optional(Candidates),
    rubric: t.Optional(Rubric),
    jurors: t.Array(t.String({ minLength: 1, maxLength: L.MAX_MODEL_ID_CHARS }), {
      minItems: L.MIN_JURORS,
      maxItems: L.MAX_JURORS,
      error: `must list ${L.MIN_JURORS} to ${L.MAX_JURORS} distinct chat model ids (GET /v1/models)`,
      description: `${L.MIN_JURORS}-${L.MAX_JURORS} distinct chat model ids, called in parallel; their order is the juror order`,
    }),
  },
  closed,
);

export const PublishBody = t.Object(
  {
    question: Question,
    candidates: t.Optional(Candidates),
    rubric: t.Optional(Rubric),
    rationales: t.Array(Nullable(t.String({ maxLength: L.MAX_RATIONALE_CHARS })), {
      minItems: L.MIN_JURORS,
      maxItems: L.MAX_JURORS,
      description: "each vote's rationale as the verdict returned it, in juror order (null where it was null)",
    }),
  },
  closed,
);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object({
  limit: t.Optional(t.String({ description: `how many, newest first: a whole number from ${L.VERDICTS_LIMIT.min}, default ${L.VERDICTS_LIMIT.default}; above ${L.VERDICTS_LIMIT.max} is clamped to ${L.VERDICTS_LIMIT.max}` })),
});

const Time = t.String({ format: "date-time" });

const VoteStatus = t.Union([t.Literal("voted"), t.Literal("abstained"), t.Literal("failed")]);

const voteFields = {
  juror: t.String({ description: "the juror's model id" }),
  status: VoteStatus,
  choice: Nullable(t.String({ description: "the label voted for; null when the juror abstained or failed" })),
  reason: Nullable(
    t.String({ description: "abstained: unparseable_answer or no_valid_choice; failed: the call's error type (upstream_error, upstream_timeout, …); null for a vote" }),
  ),
  receipt_id: Nullable(t.String({ description: "the juror call's receipt; null when the call failed (nothing was billed for it)" })),
};

/** A vote as stored and listed: no rationale. */
export const Vote = t.Object(voteFields, closed);
/** A vote with its rationale: in the answer to POST (once) and on a published verdict. */
export const VoteWithRationale = t.Object({ ...voteFields, rationale: Nullable(t.String({ description: "the juror's short reason; null when it gave none" })) }, closed);

export const Tally = t.Object(
  {
    choices: t.Record(t.String(), Int({ minimum: 0 }), { description: "votes per offered label (0 included)" }),
    abstained: Int({ minimum: 0 }),
    failed: Int({ minimum: 0 }),
  },
  closed,
);

export const Fingerprints = t.Object(
  {
    question_sha256: Hex64,
    candidates_sha256: Nullable(Hex64),
    rubric_sha256: Nullable(Hex64),
    rationales_sha256: t.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the canonical JSON array of the votes' rationales, in juror order" }),
  },
  { ...closed, description: "sha256 hex of the UTF-8 question and rubric, and of the canonical JSON of candidates and rationales; null where there was none" },
);

export const VerdictReceipt = t.Object(
  {
    receipt_id: t.String(),
    receipt: Statement,
    signature: Signature,
    signer: Address,
  },
  { ...closed, description: "the verdict's own signed receipt (kind judge): its units and attestations state the fingerprints, each juror's choice and receipt" },
);

const VerdictOutcome = t.String({ description: "the label with the most votes; tie when several share the most; undecided when no juror voted" });
const Choices = t.Array(t.String(), { description: 'the labels offered: "A", "B", … for candidates; "yes", "no" without' });

export const CreatedVerdict = t.Object(
  {
    id: t.String({ description: "vrd_…" }),
    verdict: VerdictOutcome,
    choices: Choices,
    votes: t.Array(VoteWithRationale, { description: "juror order; the rationales are returned this once (keep them to publish)" }),
    tally: Tally,
    fingerprints: Fingerprints,
    prompt_version: Int({ minimum: 1, description: "the juror prompt's version (docs/judge.md)" }),
    receipt: VerdictReceipt,
    juror_receipt_ids: t.Array(t.String(), { description: "the receipts of the juror calls that were billed, juror order" }),
    cost_micro_usd: MicroUsd({ description: "everything this verdict billed: the juror calls and the verdict's price" }),
    created_at: Time,
  },
  closed,
);

export const Verdict = t.Object(
  {
    id: t.String(),
    key_id: t.String({ description: "the API key that asked" }),
    verdict: VerdictOutcome,
    choices: Choices,
    votes: t.Array(Vote),
    tally: Tally,
    fingerprints: Fingerprints,
    prompt_version: Int({ minimum: 1 }),
    receipt_id: t.String({ description: "the verdict's own receipt" }),
    juror_receipt_ids: t.Array(t.String()),
    published: t.Boolean(),
    published_at: Nullable(Time),
    public_url: Nullable(t.String({ description: "GET /v1/judge/public/:id while published" })),
    created_at: Time,
  },
  { ...closed, description: "content-free: no question, candidates, rubric or rationale" },
);

export const TrustModel = t.Object(
  {
    jurors: t.String(),
    fingerprints: t.String(),
    content: t.String(),
    publication: t.String(),
  },
  { ...closed, description: "what a caller has to trust, and what it can check" },
);

export const VerdictList = t.Object(
  {
    verdicts: t.Array(Verdict, { maxItems: L.VERDICTS_LIMIT.max, description: "newest first, content-free" }),
    trust_model: TrustModel,
  },
  closed,
);

export const PublicVerdict = t.Object(
  {
    id: t.String(),
    verdict: VerdictOutcome,
    choices: Choices,
    question: t.String(),
    candidates: Nullable(t.Array(t.String())),
    rubric: Nullable(t.String()),
    votes: t.Array(VoteWithRationale),
    tally: Tally,
    fingerprints: Fingerprints,
    prompt_version: Int({ minimum: 1 }),
    receipt: VerdictReceipt,
    juror_receipt_ids: t.Array(t.String()),
    published_at: Time,
    created_at: Time,
    verify: t.String({ description: "how to check the content against the fingerprints and the receipt's signature" }),
  },
  closed,
);
