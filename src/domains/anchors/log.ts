/**
 * The `log` anchor backend: svc's own signed, append-only log of roots. Always on, and
 * anchored the moment it is written.
 *
 * Entry n is a signed statement (canonical JSON → base64url → EIP-191 by the receipt signer,
 * like a receipt) of {type: "anchor-log-entry", v, seq, root, memo, prev_hash, created_at},
 * where prev_hash is the SHA-256 of entry n−1's statement string (64 zeros for the first).
 * Rewriting or dropping an old entry therefore changes every later prev_hash, which the
 * signatures pin: the log can be extended, never edited without it showing.
 *
 * What it proves is bounded by trust in svc's key (it is svc vouching for itself, with a
 * tamper-evident history); the evm backend is the one that needs no trust in svc.
 */
import { createHash } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";

export const LOG_ENTRY_TYPE = "anchor-log-entry";
export const GENESIS_HASH = "0".repeat(64);

export interface LogEntryRow {
  seq: number;
  id: string;
  root: string;
  statement: string;
  signature: string;
  signer: string;
  prev_hash: string;
  entry_hash: string;
  created_at: number;
}

/** As anchors show it: everything needed to check the signature and the link to the previous entry. */
export interface LogEntryView {
  seq: number;
  id: string;
  statement: string;
  signature: string;
  signer: string;
  prev_hash: string;
  hash: string;
}

export const logEntryView = (e: LogEntryRow): LogEntryView => ({
  seq: e.seq,
  id: e.id,
  statement: e.statement,
  signature: e.signature,
  signer: e.signer,
  prev_hash: e.prev_hash,
  hash: e.entry_hash,
});

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Appends the entry for `root` (once: a root already logged answers with its entry). Runs in a
 * write transaction: reading the last entry and appending after it cannot interleave with
 * another append, so the chain never forks.
 */
export function appendLogEntry(ctx: Context, root: string, memo: string): LogEntryRow {
  return ctx.tx.run(() => {
    const existing = ctx.db.query<LogEntryRow, [string]>("SELECT * FROM anchor_log WHERE root = ?").get(root);
    if (existing) return existing;
    const last = ctx.db.query<{ seq: number; entry_hash: string }, []>("SELECT seq, entry_hash FROM anchor_log ORDER BY seq DESC LIMIT 1").get();
    const now = ctx.clock.now();
    const seq = (last?.seq ?? 0) + 1;
    const prevHash = last?.entry_hash ?? GENESIS_HASH;
    const signed = signStatement(ctx.signer, { v: 1, type: LOG_ENTRY_TYPE, seq, root, memo, prev_hash: prevHash, created_at: isoTime(now) });
    const row: LogEntryRow = {
      seq,
      id: newId("alog"),
      root,
      statement: signed.statement,
      signature: signed.signature,
      signer: signed.signer,
      prev_hash: prevHash,
      entry_hash: sha256Hex(signed.statement),
      created_at: now,
    };
    ctx.db
      .query("INSERT INTO anchor_log (seq, id, root, statement, signature, signer, prev_hash, entry_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(row.seq, row.id, row.root, row.statement, row.signature, row.signer, row.prev_hash, row.entry_hash, row.created_at);
    return row;
  });
}

export function logEntry(ctx: Context, id: string): LogEntryRow | null {
  return ctx.db.query<LogEntryRow, [string]>("SELECT * FROM anchor_log WHERE id = ?").get(id);
}

export const LOG_VERIFY =
  "svc's signed append-only log of roots. `entry.statement` is a base64url canonical-JSON statement signed with EIP-191 (`entry.signature`): " +
  "recover its signer with any Ethereum library (or POST /v1/receipts/verify {receipt: statement, signature}) and compare with GET /v1/receipts/pubkey; " +
  "decoded, it names this root, its memo, its sequence number and `prev_hash`. `entry.hash` is SHA-256 of the statement string and is the next entry's `prev_hash` (the first entry's is 64 zeros).";
