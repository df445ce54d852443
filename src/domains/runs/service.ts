/**
 * Runs: the receipts an account's calls chained together with `svc_run_id`. A run id is the
 * client's own string, scoped to the account (two accounts may use the same id and never see
 * each other's run); a run exists while it has receipts, in minting order.
 *
 * A proof is the RFC 6962 Merkle root over the run's receipt strings in order, every
 * receipt's inclusion proof, and the root's anchors. Asking for one anchors the root if it is
 * not yet: the log entry at once, an evm transaction queued when a chain is configured (it turns
 * anchored after its confirmations; GET /v1/anchors/:root shows it). A run that grows gets a new
 * root on its next proof; older roots stay valid for the receipts they cover.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { MERKLE_ALG } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { type AnchorBlock, anchorBlock, anchorRoot, hex, isRootAnchored, recordRoot } from "../anchors/index.ts";
import { receiptsOfRun, type RunReceiptRow, type RunTotals, runTotals, runTotalsOf } from "../receipts/index.ts";

/** Spec §8: GET /v1/runs returns at most 200 runs. */
export const RUNS_CAP = 200;

/** Spec §2.4's wording of canonical JSON, which every receipt payload is serialised with. */
export const COMMITMENT_ALG =
  "canonical JSON: object keys sorted ascending by Unicode code point, arrays in order, integers only, minimal string escaping, no whitespace; " +
  "each receipt is base64url(canonical JSON of its payload), signed with EIP-191";

export interface RunSummary {
  run_id: string;
  receipt_count: number;
  cost_micro_usd: number;
  first_receipt_at: string;
  last_receipt_at: string;
  /** Receipt kinds in the run, sorted. */
  kinds: string[];
  /** A root over all of the run's receipts, as they are now, has at least one anchor in status anchored. */
  anchored: boolean;
}

type SummaryRow = RunTotals;

/** The newest root over exactly the run's current receipts, or null. */
function currentRoot(ctx: Context, accountId: string, row: SummaryRow): string | null {
  return (
    ctx.db
      .query<{ root: string }, [string, string, number, number]>(
        "SELECT root FROM run_roots WHERE account_id = ? AND run_id = ? AND tree_size = ? AND last_receipt_seq = ? ORDER BY created_at DESC LIMIT 1",
      )
      .get(accountId, row.run_id, row.n, row.last_seq)?.root ?? null
  );
}

function isAnchored(ctx: Context, root: string | null): boolean {
  return root !== null && isRootAnchored(ctx, root);
}

function summary(ctx: Context, accountId: string, row: SummaryRow): RunSummary {
  return {
    run_id: row.run_id,
    receipt_count: row.n,
    cost_micro_usd: row.cost,
    first_receipt_at: isoTime(row.first_at),
    last_receipt_at: isoTime(row.last_at),
    kinds: (JSON.parse(row.kinds) as string[]).sort(),
    anchored: isAnchored(ctx, currentRoot(ctx, accountId, row)),
  };
}

/** Whether a root over all of the run's current receipts (a proof's) has an anchor in status anchored: GET /v1/runs's `anchored`. */
export const runProofAnchored = (ctx: Context, accountId: string, row: RunTotals): boolean => isAnchored(ctx, currentRoot(ctx, accountId, row));

/** The account's runs, newest activity first, at most 200. */
export function listRuns(ctx: Context, accountId: string): RunSummary[] {
  return runTotalsOf(ctx, accountId, RUNS_CAP).map((r) => summary(ctx, accountId, r));
}

function summaryRow(ctx: Context, accountId: string, runId: string): SummaryRow {
  const row = runTotals(ctx, accountId, runId);
  // Unknown, empty and another account's runs answer alike.
  if (!row) throw notFound("run");
  return row;
}

export type { RunReceiptRow };

/** The run's receipts in minting order. */
export const runReceipts = (ctx: Context, accountId: string, runId: string): RunReceiptRow[] => receiptsOfRun(ctx, accountId, runId);

export interface RunDetail extends RunSummary {
  /** The newest root over all current receipts (from a proof request), or null. */
  root: string | null;
  receipts: { id: string; kind: string; status: string; cost_micro_usd: number; created_at: string }[];
}

export function getRun(ctx: Context, accountId: string, runId: string): RunDetail {
  const row = summaryRow(ctx, accountId, runId);
  return {
    ...summary(ctx, accountId, row),
    root: currentRoot(ctx, accountId, row),
    receipts: runReceipts(ctx, accountId, runId).map((r) => ({ id: r.id, kind: r.kind, status: r.status, cost_micro_usd: r.cost_micro_usd, created_at: isoTime(r.created_at) })),
  };
}

export interface RunProof {
  run_id: string;
  root: string;
  tree_size: number;
  commitment_alg: string;
  merkle_alg: string;
  receipts: { index: number; id: string; receipt: string; signature: string; signer: string; leaf_hash: string; proof: string[] }[];
  anchor: AnchorBlock;
  verify: string;
}

/** POST /v1/runs/:id/proof: root, inclusion proofs, anchors (anchoring the root now when it is new). */
export function runProof(ctx: Context, accountId: string, runId: string): RunProof {
  const receipts = runReceipts(ctx, accountId, runId);
  if (!receipts.length) throw notFound("run");
  const { root, tree } = ctx.tx.run(() => {
    const recorded = recordRoot(ctx, receipts.map((r) => ({ receiptId: r.id, receipt: r.receipt })));
    ctx.db
      .query("INSERT OR IGNORE INTO run_roots (account_id, run_id, root, tree_size, last_receipt_seq, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(accountId, runId, recorded.root, recorded.tree.size, receipts[receipts.length - 1]!.seq, ctx.clock.now());
    anchorRoot(ctx, recorded.root);
    return recorded;
  });
  return {
    run_id: runId,
    root,
    tree_size: tree.size,
    commitment_alg: COMMITMENT_ALG,
    merkle_alg: MERKLE_ALG,
    receipts: receipts.map((r, i) => ({
      index: i,
      id: r.id,
      receipt: r.receipt,
      signature: r.signature,
      signer: r.signer,
      leaf_hash: hex(tree.leafHashes[i]!),
      proof: tree.proof(i).map(hex),
    })),
    anchor: anchorBlock(ctx, root),
    verify:
      "For each receipt: check its signature (EIP-191; POST /v1/receipts/verify or any Ethereum library), then fold its inclusion proof " +
      "(RFC 9162 §2.1.3.2) from SHA-256(0x00 || receipt) at `index` in a tree of `tree_size` leaves and compare with `root`. " +
      "Then check the root's anchors (each says how), or GET /v1/anchors/{root}.",
  };
}

/** The newest root over all the run's current receipts, with its anchors, or null (for the audit). */
export function currentAnchor(ctx: Context, accountId: string, runId: string): AnchorBlock | null {
  const root = currentRoot(ctx, accountId, summaryRow(ctx, accountId, runId));
  return root ? anchorBlock(ctx, root) : null;
}
