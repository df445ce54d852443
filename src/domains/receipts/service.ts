/**
 * Receipts as their owner and the public see them: the owner's view, opt-in public sharing,
 * and the shared lookup. Receipts are minted by the meter's settle (mint.ts) and belong to the
 * account that paid; another account's receipt, an unknown id and (publicly) an unshared one
 * all answer the same 404 (spec §5 rule 7, §7).
 */
import { isoTime } from "../../core/clock.ts";
import { invalidCursor } from "../../core/cursor.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import type { Static } from "elysia";
import type * as M from "./models.ts";
import { listSigners } from "./signers.ts";
import { decodeReceipt, verifyReceipt } from "./verify.ts";

/** A receipt's signed payload (mint.ts), decoded. */
export type ReceiptPayload = Static<typeof M.ReceiptPayload>;

export interface ReceiptRow {
  id: string;
  account_id: string;
  key_id: string | null;
  kind: string;
  status: string;
  cost_micro_usd: number;
  run_id: string | null;
  receipt: string;
  signature: string;
  signer: string;
  created_at: number;
  shared_at: number | null;
}

/** GET /v1/receipts/:id (owner). */
export interface ReceiptView {
  id: string;
  kind: string;
  status: string;
  cost_micro_usd: number;
  run_id: string | null;
  key_id: string | null;
  created_at: string;
  receipt: string;
  signature: string;
  signer: string;
  shared: boolean;
  shared_at: string | null;
  /** The public URLs while shared, null otherwise. */
  share_url: string | null;
  badge_url: string | null;
  /** The decoded receipt, for convenience; the signed string is the record. */
  payload: ReceiptPayload;
}

/** GET /v1/receipts/shared/:id (public). */
export interface SharedReceiptView {
  id: string;
  kind: string;
  status: string;
  cost_micro_usd: number;
  created_at: string;
  shared_at: string;
  receipt: string;
  signature: string;
  signer: string;
  payload: ReceiptPayload;
  badge_url: string;
  verify: string;
}

const COLUMNS = "id, account_id, key_id, kind, status, cost_micro_usd, run_id, receipt, signature, signer, created_at, shared_at";

export const sharedUrl = (ctx: Context, id: string) => `${ctx.config.public_url}/v1/receipts/shared/${encodeURIComponent(id)}`;
export const badgeUrl = (ctx: Context, id: string) => `${ctx.config.public_url}/v1/receipts/${encodeURIComponent(id)}/badge.svg`;

// The stored string is svc's own canonical JSON of a mint.ts payload; it always decodes to one.
const payloadOf = (row: ReceiptRow): ReceiptPayload => decodeReceipt(row.receipt) as ReceiptPayload;

function ownRow(ctx: Context, accountId: string, id: string): ReceiptRow {
  const row = ctx.db.query<ReceiptRow, [string, string]>(`SELECT ${COLUMNS} FROM receipts WHERE id = ? AND account_id = ?`).get(id, accountId);
  if (!row) throw notFound("receipt");
  return row;
}

function ownerView(ctx: Context, row: ReceiptRow): ReceiptView {
  const shared = row.shared_at !== null;
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    cost_micro_usd: row.cost_micro_usd,
    run_id: row.run_id,
    key_id: row.key_id,
    created_at: isoTime(row.created_at),
    receipt: row.receipt,
    signature: row.signature,
    signer: row.signer,
    shared,
    shared_at: shared ? isoTime(row.shared_at!) : null,
    share_url: shared ? sharedUrl(ctx, row.id) : null,
    badge_url: shared ? badgeUrl(ctx, row.id) : null,
    payload: payloadOf(row),
  };
}

/** GET /v1/receipts page sizes. */
export const RECEIPTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

/**
 * The account's receipts, newest first, keyset-paged on seq (the cursor is MAC'd to the account
 * and the kind filter, so a cursor of another list or tenant answers 400, never another page).
 */
export function listReceipts(ctx: Context, accountId: string, page: { limit: number; cursor?: string; kind?: string }): { receipts: ReceiptView[]; next_cursor: string | null } {
  const scope = `receipts:${accountId}:${page.kind ?? ""}`;
  const where = ["account_id = ?"];
  const args: (string | number)[] = [accountId];
  if (page.cursor !== undefined) {
    const [seq, ...rest] = ctx.cursors.decode(scope, page.cursor);
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || rest.length) throw invalidCursor();
    where.push("seq < ?");
    args.push(seq);
  }
  if (page.kind !== undefined) (where.push("kind = ?"), args.push(page.kind));
  const rows = ctx.db
    .query<ReceiptRow & { seq: number }, (string | number)[]>(`SELECT seq, ${COLUMNS} FROM receipts WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`)
    .all(...args, page.limit + 1);
  const more = rows.length > page.limit;
  if (more) rows.length = page.limit;
  return { receipts: rows.map((r) => ownerView(ctx, r)), next_cursor: more ? ctx.cursors.encode(scope, [rows[rows.length - 1]!.seq]) : null };
}

export function getReceipt(ctx: Context, accountId: string, id: string): ReceiptView {
  return ownerView(ctx, ownRow(ctx, accountId, id));
}

/** Opts the receipt into public sharing. Idempotent: sharing again keeps the first shared_at. */
export function shareReceipt(ctx: Context, accountId: string, id: string): ReceiptView {
  return ctx.tx.run(() => {
    const row = ownRow(ctx, accountId, id);
    if (row.shared_at === null) {
      row.shared_at = ctx.clock.now();
      ctx.db.query("UPDATE receipts SET shared_at = ? WHERE id = ?").run(row.shared_at, row.id);
    }
    return ownerView(ctx, row);
  });
}

/** Withdraws it: the shared URL and the badge answer 404 from now on. Idempotent. */
export function unshareReceipt(ctx: Context, accountId: string, id: string): ReceiptView {
  return ctx.tx.run(() => {
    const row = ownRow(ctx, accountId, id);
    if (row.shared_at !== null) {
      row.shared_at = null;
      ctx.db.query("UPDATE receipts SET shared_at = NULL WHERE id = ?").run(row.id);
    }
    return ownerView(ctx, row);
  });
}

/** A shared receipt's row, or the one 404 for unknown and unshared alike. */
export function sharedRow(ctx: Context, id: string): ReceiptRow {
  const row = ctx.db.query<ReceiptRow, [string]>(`SELECT ${COLUMNS} FROM receipts WHERE id = ? AND shared_at IS NOT NULL`).get(id);
  if (!row) throw notFound("receipt");
  return row;
}

export function getSharedReceipt(ctx: Context, id: string): SharedReceiptView {
  const row = sharedRow(ctx, id);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    cost_micro_usd: row.cost_micro_usd,
    created_at: isoTime(row.created_at),
    shared_at: isoTime(row.shared_at!),
    receipt: row.receipt,
    signature: row.signature,
    signer: row.signer,
    payload: payloadOf(row),
    badge_url: badgeUrl(ctx, row.id),
    verify: `POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt","signature"}, or recover the EIP-191 signer of the receipt string yourself and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey (docs/receipts.md)`,
  };
}

/** Verifies a stored receipt again, as a third party would (the badge draws "verified" only on this). */
export function verifyStored(ctx: Context, row: ReceiptRow) {
  return verifyReceipt(row.receipt, row.signature, listSigners(ctx.db));
}
