/**
 * The video_jobs table (migrations/0027_media.sql): rows and the SQL that moves them. Every
 * move out of queued/running is guarded by the status, so of two hands finishing the same job
 * (a poll and a cancel, or a poll run twice after a crash) exactly one wins; the caller runs it
 * in the transaction that settles or releases the hold.
 */
import type { Context } from "../../../context.ts";
import { notFound } from "../../../core/errors.ts";
import type { Reservation } from "../../../core/meter.ts";
import type { JobStatus } from "./limits.ts";

export interface JobRow {
  seq: number;
  id: string;
  account_id: string;
  key_id: string | null;
  run_id: string | null;
  model: string;
  provider: string;
  upstream_id: string;
  status: JobStatus;
  progress: number;
  seconds: number;
  size: string | null;
  image_input: number;
  price_micro_usd_per_second: number;
  reserved_micro_usd: number;
  reservation: string | null;
  provenance_prompt: string | null;
  cost_micro_usd: number;
  billed_seconds: number | null;
  billed: number;
  receipt_id: string | null;
  receipt: string | null;
  receipt_signature: string | null;
  receipt_signer: string | null;
  asset_id: string | null;
  asset_sha256: string | null;
  provenance: string | null;
  error: string | null;
  created_at: number;
  deadline_at: number;
  finished_at: number | null;
  /** From the asset's row (joined): null when there is no asset. */
  asset_expires_at: number | null;
  asset_destroyed_at: number | null;
}

export type NewJob = Omit<
  JobRow,
  "seq" | "cost_micro_usd" | "billed_seconds" | "billed" | "receipt_id" | "receipt" | "receipt_signature" | "receipt_signer" | "asset_id" | "asset_sha256" | "provenance" | "error" | "finished_at" | "asset_expires_at" | "asset_destroyed_at"
>;

const SELECT = `SELECT j.*, a.expires_at AS asset_expires_at, a.destroyed_at AS asset_destroyed_at
  FROM video_jobs j LEFT JOIN media_assets a ON a.id = j.asset_id`;
const OPEN = "status IN ('queued', 'running')";

export const isUnfinished = (row: Pick<JobRow, "status">): boolean => row.status === "queued" || row.status === "running";

export const reservationOf = (row: Pick<JobRow, "reservation">): Reservation | null => (row.reservation ? (JSON.parse(row.reservation) as Reservation) : null);

export function insertJob(ctx: Context, job: NewJob): void {
  ctx.db
    .query(
      `INSERT INTO video_jobs (id, account_id, key_id, run_id, model, provider, upstream_id, status, progress, seconds, size, image_input,
         price_micro_usd_per_second, reserved_micro_usd, reservation, provenance_prompt, created_at, deadline_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      job.id, job.account_id, job.key_id, job.run_id, job.model, job.provider, job.upstream_id, job.status, job.progress, job.seconds, job.size, job.image_input,
      job.price_micro_usd_per_second, job.reserved_micro_usd, job.reservation, job.provenance_prompt, job.created_at, job.deadline_at,
    );
}

export function jobRow(ctx: Context, id: string): JobRow | null {
  return ctx.db.query<JobRow, [string]>(`${SELECT} WHERE j.id = ?`).get(id);
}

/** The caller's job; unknown and another tenant's answer the same 404. */
export function ownedJob(ctx: Context, accountId: string, id: string): JobRow {
  const row = jobRow(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("video job");
  return row;
}

export function listJobs(ctx: Context, accountId: string, limit: number): JobRow[] {
  return ctx.db.query<JobRow, [string, number]>(`${SELECT} WHERE j.account_id = ? ORDER BY j.seq DESC LIMIT ?`).all(accountId, limit);
}

/** Unfinished jobs whose deadline passed before `before` (the watchdog). */
export function overdueJobIds(ctx: Context, before: number, limit: number): string[] {
  return ctx.db
    .query<{ id: string }, [number, number]>(`SELECT id FROM video_jobs WHERE ${OPEN} AND deadline_at < ? ORDER BY deadline_at LIMIT ?`)
    .all(before, limit)
    .map((r) => r.id);
}

/** What a poll saw at the provider, while the job is unfinished. */
export function recordProgress(ctx: Context, id: string, status: "queued" | "running", progress: number): void {
  // A job once seen rendering does not go back to queued.
  ctx.db.query(`UPDATE video_jobs SET status = CASE WHEN ?1 = 'running' THEN 'running' ELSE status END, progress = max(progress, ?2) WHERE id = ?3 AND ${OPEN}`).run(status, progress, id);
}

/**
 * The receipt id the manifest will cite, chosen once and kept: a delivery tried again after a
 * crash signs with the same id the first try may already have embedded.
 */
export function receiptIdFor(ctx: Context, id: string, fresh: string): string {
  ctx.db.query("UPDATE video_jobs SET receipt_id = ? WHERE id = ? AND receipt_id IS NULL").run(fresh, id);
  return ctx.db.query<{ receipt_id: string }, [string]>("SELECT receipt_id FROM video_jobs WHERE id = ?").get(id)!.receipt_id;
}

export interface Delivered {
  billedSeconds: number;
  cost: number;
  receipt: { id: string; receipt: string; signature: string; signer: string };
  assetId: string;
  sha256: string;
  provenance: Record<string, unknown>;
  at: number;
}

/** unfinished → succeeded; false when another hand finished the job first. */
export function markDelivered(ctx: Context, id: string, d: Delivered): boolean {
  return (
    ctx.db
      .query(
        `UPDATE video_jobs SET status = 'succeeded', progress = 100, reservation = NULL, provenance_prompt = NULL, billed = 1, billed_seconds = ?, cost_micro_usd = ?,
           receipt_id = ?, receipt = ?, receipt_signature = ?, receipt_signer = ?, asset_id = ?, asset_sha256 = ?, provenance = ?, error = NULL, finished_at = ?
         WHERE id = ? AND ${OPEN}`,
      )
      .run(d.billedSeconds, d.cost, d.receipt.id, d.receipt.receipt, d.receipt.signature, d.receipt.signer, d.assetId, d.sha256, JSON.stringify(d.provenance), d.at, id).changes > 0
  );
}

export interface JobFailure {
  code: string;
  message: string;
}

/** unfinished → failed, canceled or expired, nothing billed; false when another hand finished the job first. */
export function markUnbilled(ctx: Context, id: string, status: "failed" | "canceled" | "expired", error: JobFailure, at: number): boolean {
  return (
    ctx.db
      .query(`UPDATE video_jobs SET status = ?, reservation = NULL, provenance_prompt = NULL, receipt_id = NULL, error = ?, finished_at = ? WHERE id = ? AND ${OPEN}`)
      .run(status, JSON.stringify(error), at, id).changes > 0
  );
}
