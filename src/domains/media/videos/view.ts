/** A video job as the routes answer it (models.ts VideoJob). */
import type { Static } from "@sinclair/typebox";
import type { Context } from "../../../context.ts";
import { isoTime } from "../../../core/clock.ts";
import type { VideoJob } from "./models.ts";
import type { JobRow } from "./store.ts";

export type VideoJobView = Static<typeof VideoJob>;

/** Content can be served: the job succeeded and its asset is neither destroyed nor past its expiry. */
export const contentAvailable = (ctx: Context, row: JobRow): boolean =>
  row.status === "succeeded" && row.asset_id !== null && row.asset_destroyed_at === null && row.asset_expires_at !== null && row.asset_expires_at > ctx.clock.now();

function expiresAt(row: JobRow): number | null {
  if (row.status === "queued" || row.status === "running") return row.deadline_at;
  if (row.status === "succeeded") return row.asset_expires_at;
  return null;
}

export function jobView(ctx: Context, row: JobRow): VideoJobView {
  const expires = expiresAt(row);
  return {
    id: row.id,
    object: "video.generation",
    status: row.status,
    progress: row.progress,
    model: row.model,
    seconds: row.seconds,
    billed_seconds: row.billed_seconds,
    size: row.size,
    image_input: row.image_input === 1,
    price_micro_usd_per_second: row.price_micro_usd_per_second,
    reserved_micro_usd: row.reserved_micro_usd,
    cost_micro_usd: row.cost_micro_usd,
    billed: row.billed === 1,
    run_id: row.run_id,
    created_at: isoTime(row.created_at),
    finished_at: row.finished_at === null ? null : isoTime(row.finished_at),
    expires_at: expires === null ? null : isoTime(expires),
    asset_available: contentAvailable(ctx, row),
    receipt:
      row.billed === 1 && row.receipt_id && row.receipt && row.receipt_signature && row.receipt_signer
        ? { id: row.receipt_id, receipt: row.receipt, signature: row.receipt_signature, signer: row.receipt_signer }
        : null,
    provenance: row.provenance ? (JSON.parse(row.provenance) as VideoJobView["provenance"]) : null,
    error: row.error ? (JSON.parse(row.error) as VideoJobView["error"]) : null,
  };
}
