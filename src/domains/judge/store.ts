/**
 * The judge's rows: judge_verdicts (content-free: votes, tally, fingerprints, the verdict's
 * receipt) and judge_publications (the content of a published verdict, deleted on unpublish).
 * The only file that names them in SQL.
 */
import type { Context } from "../../context.ts";
import type { Fingerprints } from "./fingerprints.ts";
import type { Tally } from "./tally.ts";

export type VoteStatus = "voted" | "abstained" | "failed";

/** A vote as stored: which model, what it chose, why it did not (a reason code), its call's receipt. */
export interface StoredVote {
  juror: string;
  status: VoteStatus;
  choice: string | null;
  /** abstained: unparseable_answer | no_valid_choice; failed: the call's error type; voted: null. */
  reason: string | null;
  /** The juror call's receipt; null when the call failed (nothing was billed). */
  receipt_id: string | null;
}

export interface SignedReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

export interface VerdictRecord {
  id: string;
  accountId: string;
  keyId: string;
  choices: string[];
  votes: StoredVote[];
  tally: Tally;
  verdict: string;
  fingerprints: Fingerprints;
  promptVersion: number;
  receipt: SignedReceipt;
  createdAt: number;
  /** Null unless published. */
  publishedAt: number | null;
}

export interface PublishedContent {
  question: string;
  candidates: string[] | null;
  rubric: string | null;
  rationales: (string | null)[];
}

interface Row {
  id: string;
  account_id: string;
  key_id: string;
  choices: string;
  votes: string;
  tally: string;
  verdict: string;
  question_sha256: string;
  candidates_sha256: string | null;
  rubric_sha256: string | null;
  rationales_sha256: string;
  prompt_version: number;
  receipt_id: string;
  receipt: string;
  signature: string;
  signer: string;
  created_at: number;
  published_at: number | null;
}

const SELECT = `SELECT v.id, v.account_id, v.key_id, v.choices, v.votes, v.tally, v.verdict, v.question_sha256, v.candidates_sha256, v.rubric_sha256,
  v.rationales_sha256, v.prompt_version, v.receipt_id, v.receipt, v.signature, v.signer, v.created_at, p.published_at
  FROM judge_verdicts v LEFT JOIN judge_publications p ON p.verdict_id = v.id`;

function recordOf(r: Row): VerdictRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    keyId: r.key_id,
    choices: JSON.parse(r.choices) as string[],
    votes: JSON.parse(r.votes) as StoredVote[],
    tally: JSON.parse(r.tally) as Tally,
    verdict: r.verdict,
    fingerprints: { question_sha256: r.question_sha256, candidates_sha256: r.candidates_sha256, rubric_sha256: r.rubric_sha256, rationales_sha256: r.rationales_sha256 },
    promptVersion: r.prompt_version,
    receipt: { id: r.receipt_id, receipt: r.receipt, signature: r.signature, signer: r.signer },
    createdAt: r.created_at,
    publishedAt: r.published_at,
  };
}

export function insertVerdict(ctx: Context, v: Omit<VerdictRecord, "publishedAt">): void {
  const f = v.fingerprints;
  ctx.db
    .query(
      `INSERT INTO judge_verdicts (id, account_id, key_id, choices, votes, tally, verdict, question_sha256, candidates_sha256, rubric_sha256, rationales_sha256,
         prompt_version, receipt_id, receipt, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      v.id,
      v.accountId,
      v.keyId,
      JSON.stringify(v.choices),
      JSON.stringify(v.votes),
      JSON.stringify(v.tally),
      v.verdict,
      f.question_sha256,
      f.candidates_sha256,
      f.rubric_sha256,
      f.rationales_sha256,
      v.promptVersion,
      v.receipt.id,
      v.receipt.receipt,
      v.receipt.signature,
      v.receipt.signer,
      v.createdAt,
    );
}

export function verdictById(ctx: Context, id: string): VerdictRecord | null {
  const row = ctx.db.query<Row, [string]>(`${SELECT} WHERE v.id = ?`).get(id);
  return row ? recordOf(row) : null;
}

/** One account's verdicts, newest first. */
export function verdictsOf(ctx: Context, accountId: string, limit: number): VerdictRecord[] {
  return ctx.db.query<Row, [string, number]>(`${SELECT} WHERE v.account_id = ? ORDER BY v.seq DESC LIMIT ?`).all(accountId, limit).map(recordOf);
}

export function publishedContent(ctx: Context, verdictId: string): PublishedContent | null {
  const row = ctx.db
    .query<{ question: string; candidates: string | null; rubric: string | null; rationales: string }, [string]>(
      "SELECT question, candidates, rubric, rationales FROM judge_publications WHERE verdict_id = ?",
    )
    .get(verdictId);
  if (!row) return null;
  return {
    question: row.question,
    candidates: row.candidates === null ? null : (JSON.parse(row.candidates) as string[]),
    rubric: row.rubric,
    rationales: JSON.parse(row.rationales) as (string | null)[],
  };
}

/** Stores the content unless the verdict is already published (the first publication's time stands). */
export function insertPublication(ctx: Context, verdictId: string, content: PublishedContent, at: number): void {
  ctx.db
    .query("INSERT INTO judge_publications (verdict_id, question, candidates, rubric, rationales, published_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (verdict_id) DO NOTHING")
    .run(verdictId, content.question, content.candidates === null ? null : JSON.stringify(content.candidates), content.rubric, JSON.stringify(content.rationales), at);
}

export function deletePublication(ctx: Context, verdictId: string): void {
  ctx.db.query("DELETE FROM judge_publications WHERE verdict_id = ?").run(verdictId);
}
