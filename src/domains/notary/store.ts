/** The rows of notary_receipts: the only file that names the table in SQL. */
import type { Context } from "../../context.ts";

export interface SignedReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

export interface NotaryRecord {
  id: string;
  accountId: string;
  keyId: string;
  inputSha256: string;
  outputSha256: string;
  label: string | null;
  occurredAt: number | null;
  costMicroUsd: number;
  receipt: SignedReceipt;
  createdAt: number;
}

interface Row {
  id: string;
  account_id: string;
  key_id: string;
  input_sha256: string;
  output_sha256: string;
  label: string | null;
  occurred_at: number | null;
  cost_micro_usd: number;
  receipt_id: string;
  receipt: string;
  signature: string;
  signer: string;
  created_at: number;
}

const COLUMNS = "id, account_id, key_id, input_sha256, output_sha256, label, occurred_at, cost_micro_usd, receipt_id, receipt, signature, signer, created_at";

const recordOf = (r: Row): NotaryRecord => ({
  id: r.id,
  accountId: r.account_id,
  keyId: r.key_id,
  inputSha256: r.input_sha256,
  outputSha256: r.output_sha256,
  label: r.label,
  occurredAt: r.occurred_at,
  costMicroUsd: r.cost_micro_usd,
  receipt: { id: r.receipt_id, receipt: r.receipt, signature: r.signature, signer: r.signer },
  createdAt: r.created_at,
});

export function insertNotaryReceipt(ctx: Context, n: NotaryRecord): void {
  ctx.db
    .query(
      `INSERT INTO notary_receipts (id, account_id, key_id, input_sha256, output_sha256, label, occurred_at, cost_micro_usd, receipt_id, receipt, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(n.id, n.accountId, n.keyId, n.inputSha256, n.outputSha256, n.label, n.occurredAt, n.costMicroUsd, n.receipt.id, n.receipt.receipt, n.receipt.signature, n.receipt.signer, n.createdAt);
}

export function notaryReceiptById(ctx: Context, id: string): NotaryRecord | null {
  const row = ctx.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM notary_receipts WHERE id = ?`).get(id);
  return row ? recordOf(row) : null;
}

/** One account's notary receipts, newest first. */
export function notaryReceiptsOf(ctx: Context, accountId: string, limit: number): NotaryRecord[] {
  return ctx.db.query<Row, [string, number]>(`SELECT ${COLUMNS} FROM notary_receipts WHERE account_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, limit).map(recordOf);
}
