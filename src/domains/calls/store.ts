/**
 * The rows of sealed_calls: the only file that names the table in SQL. Text and salt are
 * stored sealed (core/seal.ts) under an AAD naming the call and the field, so a sealed value
 * cannot be moved to another call or swapped between the two fields.
 */
import type { Context } from "../../context.ts";

export type CallMode = "text" | "commitment";
export type CallState = "committed" | "revealed";

export interface SignedReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

export interface CallRecord {
  seq: number;
  id: string;
  accountId: string;
  keyId: string;
  mode: CallMode;
  commitment: string;
  state: CallState;
  receipt: SignedReceipt;
  anchorRoot: string | null;
  anchorIndex: number | null;
  createdAt: number;
  revealedAt: number | null;
}

interface Row {
  seq: number;
  id: string;
  account_id: string;
  key_id: string;
  mode: CallMode;
  commitment: string;
  state: CallState;
  receipt_id: string;
  receipt: string;
  signature: string;
  signer: string;
  anchor_root: string | null;
  anchor_index: number | null;
  created_at: number;
  revealed_at: number | null;
}

const COLUMNS =
  "seq, id, account_id, key_id, mode, commitment, state, receipt_id, receipt, signature, signer, anchor_root, anchor_index, created_at, revealed_at";

const recordOf = (r: Row): CallRecord => ({
  seq: r.seq,
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  mode: r.mode,
  commitment: r.commitment,
  state: r.state,
  receipt: { id: r.receipt_id, receipt: r.receipt, signature: r.signature, signer: r.signer },
  anchorRoot: r.anchor_root,
  anchorIndex: r.anchor_index,
  createdAt: r.created_at,
  revealedAt: r.revealed_at,
});

const aad = (callId: string, field: "text" | "salt") => `calls:${callId}:${field}`;

export interface Secret {
  text: string;
  salt: Buffer;
}

export function insertCall(ctx: Context, c: Omit<CallRecord, "seq" | "state" | "anchorRoot" | "anchorIndex" | "revealedAt">, secret: Secret | null): void {
  ctx.db
    .query(
      `INSERT INTO sealed_calls (id, account_id, key_id, mode, commitment, state, text_sealed, salt_sealed, receipt_id, receipt, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, 'committed', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      c.id,
      c.accountId,
      c.keyId,
      c.mode,
      c.commitment,
      secret ? ctx.sealer.seal(secret.text, aad(c.id, "text")) : null,
      secret ? ctx.sealer.seal(secret.salt, aad(c.id, "salt")) : null,
      c.receipt.id,
      c.receipt.receipt,
      c.receipt.signature,
      c.receipt.signer,
      c.createdAt,
    );
}

export function callById(ctx: Context, id: string): CallRecord | null {
  const row = ctx.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM sealed_calls WHERE id = ?`).get(id);
  return row ? recordOf(row) : null;
}

/** The text and salt svc holds for a call: a text-mode call's from its commit, any call's once revealed. */
export function secretOf(ctx: Context, id: string): Secret | null {
  const row = ctx.db.query<{ text_sealed: string | null; salt_sealed: string | null }, [string]>("SELECT text_sealed, salt_sealed FROM sealed_calls WHERE id = ?").get(id);
  if (!row?.text_sealed || !row.salt_sealed) return null;
  return { text: ctx.sealer.openText(row.text_sealed, aad(id, "text")), salt: ctx.sealer.open(row.salt_sealed, aad(id, "salt")) };
}

/** committed → revealed; the text and salt are stored when the caller supplied them (mode commitment). False when it was already revealed. */
export function markRevealed(ctx: Context, id: string, at: number, supplied: Secret | null): boolean {
  const changed = supplied
    ? ctx.db
        .query("UPDATE sealed_calls SET state = 'revealed', revealed_at = ?, text_sealed = ?, salt_sealed = ? WHERE id = ? AND state = 'committed'")
        .run(at, ctx.sealer.seal(supplied.text, aad(id, "text")), ctx.sealer.seal(supplied.salt, aad(id, "salt")), id).changes
    : ctx.db.query("UPDATE sealed_calls SET state = 'revealed', revealed_at = ? WHERE id = ? AND state = 'committed'").run(at, id).changes;
  return changed > 0;
}

export const countOfAccount = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sealed_calls WHERE account_id = ?").get(accountId)!.n;

/** One account's calls, or only those one of its keys committed, newest first. */
export function callsOf(ctx: Context, accountId: string, keyId: string | null, limit: number): CallRecord[] {
  const rows =
    keyId === null
      ? ctx.db.query<Row, [string, number]>(`SELECT ${COLUMNS} FROM sealed_calls WHERE account_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, limit)
      : ctx.db.query<Row, [string, string, number]>(`SELECT ${COLUMNS} FROM sealed_calls WHERE account_id = ? AND key_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, keyId, limit);
  return rows.map(recordOf);
}

/** Commits not yet under a root, oldest first: the next batch's leaves. */
export function unanchored(ctx: Context, limit: number): { id: string; receiptId: string; receipt: string }[] {
  return ctx.db
    .query<{ id: string; receipt_id: string; receipt: string }, [number]>("SELECT id, receipt_id, receipt FROM sealed_calls WHERE anchor_root IS NULL ORDER BY seq LIMIT ?")
    .all(limit)
    .map((r) => ({ id: r.id, receiptId: r.receipt_id, receipt: r.receipt }));
}

export function setAnchor(ctx: Context, id: string, root: string, index: number): void {
  ctx.db.query("UPDATE sealed_calls SET anchor_root = ?, anchor_index = ? WHERE id = ?").run(root, index, id);
}

/** The receipts under a root, in leaf order: what the root was computed over. */
export function leavesOf(ctx: Context, root: string): string[] {
  return ctx.db
    .query<{ receipt: string }, [string]>("SELECT receipt FROM sealed_calls WHERE anchor_root = ? ORDER BY anchor_index")
    .all(root)
    .map((r) => r.receipt);
}
