/**
 * Anchoring roots of receipt batches: run proofs (on request) and periodic batches of every
 * receipt minted (a recurring job). Each root gets a `log` anchor at once (svc's signed log,
 * log.ts) and, when a chain is configured, an `evm` anchor (a transaction carrying the memo,
 * evm.ts) that the scheduler sends and confirms. GET /v1/anchors/:root publishes a root with
 * its ordered leaves and all its anchors.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { MERKLE_ALG } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import type { Static } from "elysia";
import { receiptsAfter } from "../receipts/index.ts";
import { advanceEvmAnchors, EVM_SEND_JOB, EVM_TICK_JOB, EVM_TICK_MS, evmVerify, requestEvmAnchor, requiredConfirmations } from "./evm.ts";
import { appendLogEntry, LOG_VERIFY, logEntry, logEntryView, type LogEntryView } from "./log.ts";
import type * as M from "./models.ts";
import { findRoot, memoFor, publicLeaves, recordRoot } from "./roots.ts";

export type AnchorStatus = Static<typeof M.AnchorStatus>;

/** One anchor as the API shows it (the spec's anchor block fields, plus backend details): models.ts. */
export type AnchorView = Static<typeof M.Anchor>;

/** The spec's anchor block (§2.4): root, memo, anchors[]. */
export type AnchorBlock = Static<typeof M.AnchorBlock>;

interface AnchorRow {
  id: string;
  root: string;
  backend: "log" | "evm";
  status: AnchorStatus;
  memo: string;
  external_id: string | null;
  chain: string | null;
  chain_id: number | null;
  block_number: number | null;
  created_at: number;
  confirmed_at: number | null;
}

/**
 * Anchors a recorded root: the log entry now, an evm transaction queued when configured. Each
 * backend anchors a root once; calling again changes nothing. Runs inside one transaction
 * with the caller's writes, so a root is never recorded without its anchors queued.
 */
export function anchorRoot(ctx: Context, root: string): void {
  ctx.tx.run(() => {
    // A root keeps the memo it was first anchored with, on every backend.
    const memo = ctx.db.query<{ memo: string }, [string]>("SELECT memo FROM anchors WHERE root = ? LIMIT 1").get(root)?.memo ?? memoFor(ctx, root);
    const hasLog = ctx.db.query("SELECT 1 FROM anchors WHERE root = ? AND backend = 'log'").get(root);
    if (!hasLog) {
      const entry = appendLogEntry(ctx, root, memo);
      ctx.db
        .query("INSERT INTO anchors (id, root, backend, status, memo, external_id, created_at, submitted_at, confirmed_at) VALUES (?, ?, 'log', 'anchored', ?, ?, ?, ?, ?)")
        .run(newId("anc"), root, memo, entry.id, entry.created_at, entry.created_at, entry.created_at);
    }
    requestEvmAnchor(ctx, root, memo);
  });
}

function anchorView(ctx: Context, row: AnchorRow): AnchorView {
  const base = {
    external_id: row.external_id,
    status: row.status,
    created_at: isoTime(row.created_at),
    confirmed_at: row.confirmed_at === null ? null : isoTime(row.confirmed_at),
  };
  if (row.backend === "log") {
    const entry = row.external_id ? logEntry(ctx, row.external_id) : null;
    return { ...base, backend: "log", verify: LOG_VERIFY, explorer_url: null, ...(entry ? { entry: logEntryView(entry) } : {}) };
  }
  const chain = ctx.config.chains.find((c) => c.name === row.chain);
  const explorer = chain?.explorer_url && row.external_id ? `${chain.explorer_url.replace(/\/+$/, "")}/tx/${row.external_id}` : null;
  const confirmations = chain ? requiredConfirmations(ctx, chain) : 1;
  return {
    ...base,
    backend: "evm",
    verify: evmVerify(row.memo, row.chain ?? "?", row.chain_id ?? 0, row.external_id, confirmations),
    explorer_url: explorer,
    chain: row.chain ?? undefined,
    chain_id: row.chain_id ?? undefined,
    block_number: row.block_number,
  };
}

export function anchorViews(ctx: Context, root: string): AnchorView[] {
  return ctx.db
    .query<AnchorRow, [string]>("SELECT * FROM anchors WHERE root = ? ORDER BY created_at, backend")
    .all(root)
    .map((r) => anchorView(ctx, r));
}

export function anchorBlock(ctx: Context, root: string): AnchorBlock {
  // The memo the root was first anchored with: a later change of anchors.memo_prefix applies to new roots only.
  const first = ctx.db.query<{ memo: string }, [string]>("SELECT memo FROM anchors WHERE root = ? ORDER BY created_at, backend LIMIT 1").get(root);
  return { root, memo: first?.memo ?? memoFor(ctx, root), anchors: anchorViews(ctx, root) };
}

export type AnchorDocument = Static<typeof M.AnchorDocument>;

/** GET /v1/anchors/:root: the root, its memo, its ordered leaves and all its anchors. */
export function anchorDocument(ctx: Context, rootParam: string): AnchorDocument {
  const row = findRoot(ctx, rootParam);
  if (!row) throw notFound("root");
  return {
    ...anchorBlock(ctx, row.root),
    tree_size: row.tree_size,
    merkle_alg: MERKLE_ALG,
    leaves: publicLeaves(ctx, row.root),
    created_at: isoTime(row.created_at),
    verify:
      "Recompute the root from the leaf hashes (RFC 6962: node hash = SHA-256(0x01 || left || right), split at the largest power of two below the size) and compare with `root`; " +
      "a receipt you hold is leaf i when SHA-256(0x00 || receipt string) equals leaves[i].leaf_hash. Then check each anchor as its `verify` says.",
  };
}

/** Receipts per batch root; a backlog larger than this becomes several batches in one run. */
const BATCH_MAX_LEAVES = 50_000;

/**
 * One batch root over the receipts minted since the last batch (at most BATCH_MAX_LEAVES), or
 * null when there are none. The read, the root and its anchors are one write transaction, so
 * two runs can never batch the same receipts twice, and a receipt committed meanwhile lands in
 * the next batch (seq only grows).
 */
export function batchNewReceipts(ctx: Context): { root: string; tree_size: number } | null {
  return ctx.tx.run(() => {
    const after = ctx.db.query<{ last: number | null }, []>("SELECT max(last_receipt_seq) AS last FROM receipt_batches").get()?.last ?? 0;
    const rows = receiptsAfter(ctx, after, BATCH_MAX_LEAVES);
    if (!rows.length) return null;
    const { root, tree } = recordRoot(ctx, rows.map((r) => ({ receiptId: r.id, receipt: r.receipt })));
    ctx.db
      .query("INSERT INTO receipt_batches (root, first_receipt_seq, last_receipt_seq, created_at) VALUES (?, ?, ?, ?)")
      .run(root, rows[0]!.seq, rows[rows.length - 1]!.seq, ctx.clock.now());
    anchorRoot(ctx, root);
    return { root, tree_size: tree.size };
  });
}

export const BATCH_JOB = "anchors.batch";

export function registerAnchorJobs(ctx: Context): void {
  // Every receipt ends up under an anchored root: new receipts are gathered once per interval.
  ctx.scheduler.every(
    BATCH_JOB,
    ctx.config.anchors.batch_interval_secs * 1000,
    () => {
      let batch;
      while ((batch = batchNewReceipts(ctx))) ctx.log.info("receipts batched and anchored", batch);
    },
    ctx.config.anchors.batch_interval_secs * 1000,
  );
  // evm anchors: a send right after each request, and a pass every 15 s that re-sends, re-broadcasts and confirms.
  ctx.scheduler.register(EVM_SEND_JOB, async () => void (await advanceEvmAnchors(ctx)));
  ctx.scheduler.every(EVM_TICK_JOB, EVM_TICK_MS, async () => void (await advanceEvmAnchors(ctx)));
}
