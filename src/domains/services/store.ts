/**
 * The marketplace's rows: services, service_calls and service_payments. The only file that names
 * them in SQL.
 */
import type { Context } from "../../context.ts";

export interface ServiceRow {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  description: string;
  price_micro_usd: number;
  payee: string;
  upstream_url: string | null;
  handler_model: string | null;
  listed: number;
  enabled: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface CallRow {
  id: string;
  service_id: string;
  status: "running" | "completed" | "failed";
  price_micro_usd: number;
  chain: string;
  chain_id: number;
  tx_hash: string;
  log_index: number;
  payer: string;
  amount_units: string;
  amount_micro_usd: number;
  http_status: number | null;
  latency_ms: number | null;
  request_sha256: string;
  response_sha256: string | null;
  error: string | null;
  statement: string | null;
  signature: string | null;
  signer: string | null;
  created_at: number;
  finished_at: number | null;
}

const SERVICE_COLUMNS = "id, account_id, slug, name, description, price_micro_usd, payee, upstream_url, handler_model, listed, enabled, created_at, updated_at, deleted_at";
const CALL_COLUMNS =
  "id, service_id, status, price_micro_usd, chain, chain_id, tx_hash, log_index, payer, amount_units, amount_micro_usd, http_status, latency_ms, request_sha256, response_sha256, error, statement, signature, signer, created_at, finished_at";

export function insertService(ctx: Context, row: ServiceRow): void {
  ctx.db
    .query(`INSERT INTO services (${SERVICE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(row.id, row.account_id, row.slug, row.name, row.description, row.price_micro_usd, row.payee, row.upstream_url, row.handler_model, row.listed, row.enabled, row.created_at, row.updated_at, row.deleted_at);
}

/** Whether any service, live or deleted, of any account has taken the slug. */
export const slugTaken = (ctx: Context, slug: string): boolean => ctx.db.query("SELECT 1 FROM services WHERE slug = ?").get(slug) !== null;

/** A live (not deleted) service by slug, whoever owns it. */
export const liveServiceBySlug = (ctx: Context, slug: string): ServiceRow | null =>
  ctx.db.query<ServiceRow, [string]>(`SELECT ${SERVICE_COLUMNS} FROM services WHERE slug = ? AND deleted_at IS NULL`).get(slug);

/** The account's live services, oldest first. */
export const liveServicesOf = (ctx: Context, accountId: string): ServiceRow[] =>
  ctx.db.query<ServiceRow, [string]>(`SELECT ${SERVICE_COLUMNS} FROM services WHERE account_id = ? AND deleted_at IS NULL ORDER BY seq`).all(accountId);

export const liveServiceCount = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM services WHERE account_id = ? AND deleted_at IS NULL").get(accountId)!.n;

/** Listed, enabled, live services with their completed-call counts: most called first, then oldest first. */
export function directoryRows(ctx: Context, cap: number): (ServiceRow & { calls_completed: number })[] {
  return ctx.db
    .query<ServiceRow & { calls_completed: number }, [number]>(
      `SELECT ${SERVICE_COLUMNS.split(", ").map((c) => `s.${c}`).join(", ")},
              (SELECT count(*) FROM service_calls c WHERE c.service_id = s.id AND c.status = 'completed') AS calls_completed
         FROM services s
        WHERE s.listed = 1 AND s.enabled = 1 AND s.deleted_at IS NULL
        ORDER BY calls_completed DESC, s.seq
        LIMIT ?`,
    )
    .all(cap);
}

export function updateService(ctx: Context, id: string, fields: { price_micro_usd: number; description: string; listed: number; enabled: number; updated_at: number }): void {
  ctx.db
    .query("UPDATE services SET price_micro_usd = ?, description = ?, listed = ?, enabled = ?, updated_at = ? WHERE id = ?")
    .run(fields.price_micro_usd, fields.description, fields.listed, fields.enabled, fields.updated_at, id);
}

export function markDeleted(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE services SET deleted_at = ?, updated_at = ?, listed = 0, enabled = 0 WHERE id = ?").run(at, at, id);
}

/** The call a transfer paid for (completed or under way), or null when the transfer is unspent. */
export const callPaidBy = (ctx: Context, chainId: number, txHash: string, position: number): string | null =>
  ctx.db.query<{ call_id: string }, [number, string, number]>("SELECT call_id FROM service_payments WHERE chain_id = ? AND tx_hash = ? AND log_position = ?").get(chainId, txHash, position)?.call_id ??
  null;

/** Records a call under way and spends its transfer: both in the caller's transaction. */
export function insertCall(ctx: Context, row: CallRow, position: number): void {
  ctx.db
    .query(`INSERT INTO service_calls (${CALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(
      row.id,
      row.service_id,
      row.status,
      row.price_micro_usd,
      row.chain,
      row.chain_id,
      row.tx_hash,
      row.log_index,
      row.payer,
      row.amount_units,
      row.amount_micro_usd,
      row.http_status,
      row.latency_ms,
      row.request_sha256,
      row.response_sha256,
      row.error,
      row.statement,
      row.signature,
      row.signer,
      row.created_at,
      row.finished_at,
    );
  ctx.db.query("INSERT INTO service_payments (chain_id, tx_hash, log_position, call_id) VALUES (?, ?, ?, ?)").run(row.chain_id, row.tx_hash, position, row.id);
}

export function completeCall(ctx: Context, id: string, f: Pick<CallRow, "http_status" | "latency_ms" | "response_sha256" | "statement" | "signature" | "signer" | "finished_at">): void {
  ctx.db
    .query("UPDATE service_calls SET status = 'completed', http_status = ?, latency_ms = ?, response_sha256 = ?, statement = ?, signature = ?, signer = ?, finished_at = ? WHERE id = ?")
    .run(f.http_status, f.latency_ms, f.response_sha256, f.statement, f.signature, f.signer, f.finished_at, id);
}

/** A call that was not answered: recorded as failed, and its transfer released for another try. */
export function failCall(ctx: Context, id: string, f: Pick<CallRow, "http_status" | "latency_ms" | "error" | "finished_at">): void {
  ctx.db.query("UPDATE service_calls SET status = 'failed', http_status = ?, latency_ms = ?, error = ?, finished_at = ? WHERE id = ?").run(f.http_status, f.latency_ms, f.error, f.finished_at, id);
  ctx.db.query("DELETE FROM service_payments WHERE call_id = ?").run(id);
}

/** The service's most recent calls, newest first. */
export const recentCalls = (ctx: Context, serviceId: string, cap: number): CallRow[] =>
  ctx.db.query<CallRow, [string, number]>(`SELECT ${CALL_COLUMNS} FROM service_calls WHERE service_id = ? ORDER BY seq DESC LIMIT ?`).all(serviceId, cap);
