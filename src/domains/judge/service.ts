/**
 * The judge's rules (docs/judge.md): convene 1-5 juror models on a question, aggregate their
 * votes into a verdict, sign the content's fingerprints in the verdict's own receipt, and keep
 * nothing of the content unless the owner publishes it — re-supplied, and checked against
 * those fingerprints.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Context } from "../../context.ts";
import { checkChatModel } from "../inference/index.ts";
import { type Content, type Fingerprints, fingerprintsOf, mismatchedFields } from "./fingerprints.ts";
import { type Ballot, choicesOf, PROMPT_VERSION } from "./juror-prompt.ts";
import { convene, type JurorVote } from "./jury.ts";
// Types only: models.ts reads limits.ts, and the shapes served are declared there once.
import type { CreatedVerdict, PublicVerdict, TrustModel, Verdict } from "./models.ts";
import { deletePublication, insertPublication, insertVerdict, publishedContent, type SignedReceipt, type StoredVote, verdictById, verdictsOf, type VerdictRecord } from "./store.ts";
import { type Tally, tallyVotes } from "./tally.ts";

export type VerdictView = Static<typeof Verdict>;
export type CreatedVerdictView = Static<typeof CreatedVerdict>;
export type PublicVerdictView = Static<typeof PublicVerdict>;

export interface VerdictInput extends Ballot {
  jurors: string[];
}

export interface JudgeCaller {
  accountId: string;
  keyId: string;
}

/** What GET /v1/judge/verdicts states beside the list (spec §2.1 trust_model): what a caller has to trust, and what it can check. */
export const TRUST_MODEL: Static<typeof TrustModel> = {
  jurors:
    "each vote is the answer of the juror model it names, called through svc's metered pipeline with the prompt of docs/judge.md; you trust svc to have sent that prompt and reported the answer as given. Each juror call has its own signed receipt.",
  fingerprints:
    "svc computed the sha256 fingerprints of the question, candidates, rubric and rationales and signed them, with the verdict and each juror's choice, in the verdict's receipt (kind judge). The signature proves what svc stated, not that any juror judged well.",
  content: "the question, candidates, rubric and rationales are returned once and not stored; svc keeps only the fingerprints unless the owner publishes the verdict.",
  publication:
    "publishing re-supplies the content and svc stores it only when it matches the signed fingerprints, so a reader of GET /v1/judge/public/:id can recompute the sha256s and check the receipt's signature against GET /v1/receipts/pubkey.",
};

const publicUrl = (ctx: Context, id: string) => `${ctx.config.public_url}/v1/judge/public/${encodeURIComponent(id)}`;

/** Every refusal of the input happens here, before anything is reserved or called. */
function checkJurors(ctx: Context, keyId: string, jurors: readonly string[]): void {
  jurors.forEach((juror, i) => {
    const first = jurors.indexOf(juror);
    if (first !== i) throw invalidField(`jurors.${i}`, `repeats jurors.${first} (${juror}); each juror must be a different model`);
    checkChatModel(ctx, juror, `jurors.${i}`);
  });
  // The meter refuses a model outside a key's allow-list at the juror's reservation; checked here
  // too, so such a panel is refused whole instead of after its other jurors were billed.
  for (const key of ctx.meter.chain(keyId)) {
    if (key.allowed_models === null) continue;
    const allowed = JSON.parse(key.allowed_models) as string[];
    const i = jurors.findIndex((j) => !allowed.includes(j));
    if (i >= 0) throw new ApiError(403, "resource_not_allowed", `jurors.${i}: API key ${key.id} may not use model "${jurors[i]}"`, { param: `jurors.${i}`, allowed });
  }
}

/** What the verdict's receipt states: counts and the outcome as units, fingerprints and each juror's choice and receipt as attestations. */
function receiptUnits(ballot: Ballot, votes: JurorVote[], tally: Tally, verdict: string, f: Fingerprints): Record<string, unknown> {
  const fingerprints: Record<string, string> = { question_sha256: f.question_sha256, rationales_sha256: f.rationales_sha256 };
  if (f.candidates_sha256 !== null) fingerprints.candidates_sha256 = f.candidates_sha256;
  if (f.rubric_sha256 !== null) fingerprints.rubric_sha256 = f.rubric_sha256;
  return {
    prompt_version: PROMPT_VERSION,
    mode: ballot.candidates === null ? "yes_no" : "candidates",
    choices_offered: choicesOf(ballot.candidates).length,
    jurors: votes.length,
    voted: votes.length - tally.abstained - tally.failed,
    abstained: tally.abstained,
    failed: tally.failed,
    verdict,
    attestations: {
      fingerprints,
      jurors: {
        models: votes.map((v) => v.juror),
        // A label, or "abstained" / "failed" (labels are A-J or yes/no, so neither can be one).
        votes: votes.map((v) => v.choice ?? v.status),
        // "" for a juror whose call failed: it has no receipt.
        receipt_ids: votes.map((v) => v.receipt_id ?? ""),
      },
    },
  };
}

const storedVote = (v: JurorVote): StoredVote => ({ juror: v.juror, status: v.status, choice: v.choice, reason: v.reason, receipt_id: v.receipt_id });
const receiptView = (r: SignedReceipt) => ({ receipt_id: r.id, receipt: r.receipt, signature: r.signature, signer: r.signer });
const jurorReceiptIds = (votes: readonly StoredVote[]) => votes.flatMap((v) => (v.receipt_id ? [v.receipt_id] : []));

/**
 * Convenes the jurors inside the verdict's own metered work: the verdict's price is reserved
 * first (so an account that cannot pay it is refused before any juror is called), and a verdict
 * that fails releases it. The content goes to the jurors and into the answer, never to the table.
 */
export async function createVerdict(ctx: Context, caller: JudgeCaller, input: VerdictInput, signal: AbortSignal): Promise<CreatedVerdictView> {
  checkJurors(ctx, caller.keyId, input.jurors);
  const id = newId("vrd");
  const labels = choicesOf(input.candidates);
  const { result, settlement } = await meterWork(
    ctx.meter,
    ctx.log,
    { accountId: caller.accountId, keyId: caller.keyId, price: ctx.config.judge.verdict_price_micro_usd, kind: "judge", resource: id },
    async () => {
      const votes = await convene(ctx, caller, input.jurors, input, signal);
      const { tally, verdict } = tallyVotes(labels, votes);
      const fingerprints = fingerprintsOf({ ...input, rationales: votes.map((v) => v.rationale) });
      return { result: { votes, tally, verdict, fingerprints }, status: "succeeded", units: receiptUnits(input, votes, tally, verdict, fingerprints) };
    },
  );
  // Receipts are minted in every settle (the receipts area); a settle without one is a broken deployment.
  if (!settlement.receipt) throw new Error("the verdict's settle minted no receipt");
  const record: Omit<VerdictRecord, "publishedAt"> = {
    id,
    accountId: caller.accountId,
    keyId: caller.keyId,
    choices: labels,
    votes: result.votes.map(storedVote),
    tally: result.tally,
    verdict: result.verdict,
    fingerprints: result.fingerprints,
    promptVersion: PROMPT_VERSION,
    receipt: settlement.receipt,
    createdAt: ctx.clock.now(),
  };
  insertVerdict(ctx, record);
  return {
    id,
    verdict: record.verdict,
    choices: labels,
    votes: result.votes.map((v) => ({ ...storedVote(v), rationale: v.rationale })),
    tally: record.tally,
    fingerprints: record.fingerprints,
    prompt_version: PROMPT_VERSION,
    receipt: receiptView(settlement.receipt),
    juror_receipt_ids: jurorReceiptIds(record.votes),
    cost_micro_usd: settlement.cost + result.votes.reduce((sum, v) => sum + v.cost, 0),
    created_at: isoTime(record.createdAt),
  };
}

function ownerView(ctx: Context, v: VerdictRecord): VerdictView {
  return {
    id: v.id,
    key_id: v.keyId,
    verdict: v.verdict,
    choices: v.choices,
    votes: v.votes,
    tally: v.tally,
    fingerprints: v.fingerprints,
    prompt_version: v.promptVersion,
    receipt_id: v.receipt.id,
    juror_receipt_ids: jurorReceiptIds(v.votes),
    published: v.publishedAt !== null,
    published_at: v.publishedAt === null ? null : isoTime(v.publishedAt),
    public_url: v.publishedAt === null ? null : publicUrl(ctx, v.id),
    created_at: isoTime(v.createdAt),
  };
}

/** Another account's verdict answers the same 404 as an unknown one. */
function ownVerdict(ctx: Context, accountId: string, id: string): VerdictRecord {
  const v = verdictById(ctx, id);
  if (!v || v.accountId !== accountId) throw notFound("verdict");
  return v;
}

export function listVerdicts(ctx: Context, accountId: string, limit: number): VerdictView[] {
  return verdictsOf(ctx, accountId, limit).map((v) => ownerView(ctx, v));
}

export function getVerdict(ctx: Context, accountId: string, id: string): VerdictView {
  return ownerView(ctx, ownVerdict(ctx, accountId, id));
}

/**
 * Stores the re-supplied content when every fingerprint matches the signed one (422
 * fingerprint_mismatch naming the fields otherwise, and nothing is stored). Idempotent:
 * publishing again keeps the first published_at.
 */
export function publishVerdict(ctx: Context, accountId: string, id: string, content: Content): VerdictView {
  const v = ownVerdict(ctx, accountId, id);
  const wrong = mismatchedFields(v.fingerprints, fingerprintsOf(content));
  if (wrong.length) {
    const count = content.rationales.length !== v.votes.length ? ` (rationales must hold ${v.votes.length} entries, one per juror in juror order, null where a juror gave none)` : "";
    throw new ApiError(422, "fingerprint_mismatch", `${wrong.join(", ")}: does not match the fingerprint the verdict's receipt states${count}; nothing was published`, {
      param: wrong[0],
      mismatched: wrong,
    });
  }
  insertPublication(ctx, v.id, content, ctx.clock.now());
  return getVerdict(ctx, accountId, id);
}

/** Deletes the stored content; the public page answers 404 again. Idempotent. */
export function unpublishVerdict(ctx: Context, accountId: string, id: string): VerdictView {
  const v = ownVerdict(ctx, accountId, id);
  deletePublication(ctx, v.id);
  return getVerdict(ctx, accountId, id);
}

/** A published verdict with its content, for anyone; unknown and unpublished alike answer 404. */
export function publicVerdict(ctx: Context, id: string): PublicVerdictView {
  const v = verdictById(ctx, id);
  const content = v && publishedContent(ctx, v.id);
  if (!v || !content || v.publishedAt === null) throw notFound("verdict");
  return {
    id: v.id,
    verdict: v.verdict,
    choices: v.choices,
    question: content.question,
    candidates: content.candidates,
    rubric: content.rubric,
    votes: v.votes.map((vote, i) => ({ ...vote, rationale: content.rationales[i] ?? null })),
    tally: v.tally,
    fingerprints: v.fingerprints,
    prompt_version: v.promptVersion,
    receipt: receiptView(v.receipt),
    juror_receipt_ids: jurorReceiptIds(v.votes),
    published_at: isoTime(v.publishedAt),
    created_at: isoTime(v.createdAt),
    verify: `sha256 the UTF-8 question and rubric, and the canonical JSON of candidates and of the rationales (juror order), and compare them with fingerprints and with the receipt's attestations.fingerprints; then check the receipt: POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt","signature"}, or recover its EIP-191 signer and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey (docs/judge.md)`,
  };
}
