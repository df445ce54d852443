/**
 * The attestation.* webhook events (spec §6 names the family; docs/attestations.md "Events").
 * One event per change of an asset's status as a reader sees it, named for the new status:
 *
 *   attestation.verified | attestation.discrepancy | attestation.unavailable
 *       a new version (check or refresh) whose status differs from the superseded version's
 *       status as read at that moment (so a refresh of a STALE record that verifies again fires)
 *   attestation.stale
 *       the latest version was VERIFIED and its freshness window ran out (a recurring pass,
 *       once per version)
 *
 * Payload: ids, seq and statuses only, never a figure or a source's answer.
 */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { STALE_SCAN_BATCH } from "./limits.ts";
import type { ReadStatus } from "./rules.ts";
import { noteStale, staleWithoutNotice, type VersionRecord } from "./store.ts";

export const ATTESTATION_EVENTS = ["attestation.verified", "attestation.discrepancy", "attestation.unavailable", "attestation.stale"] as const;

export const STALE_JOB = "attestations.stale_notices";

const eventFor = (status: ReadStatus) => `attestation.${status.toLowerCase()}`;

/** Inside the transaction that stores `next`: the event of its status change, if any. */
export function emitChange(ctx: Context, previous: { version: VersionRecord; status: ReadStatus } | null, next: VersionRecord): void {
  if (!previous || previous.status === next.statusAtCheck) return;
  ctx.outbox.emit(eventFor(next.statusAtCheck), next.accountId, {
    asset_id: next.assetId,
    attestation_id: next.id,
    seq: next.seq,
    from: previous.status,
    to: next.statusAtCheck,
    previous_attestation_id: previous.version.id,
    previous_seq: previous.version.seq,
    at: isoTime(next.checkedAt),
  });
}

/** One pass: attestation.stale for each latest VERIFIED version whose window has run out, once. Returns how many went out. */
export function sendStaleNotices(ctx: Context): number {
  let sent = 0;
  for (const v of staleWithoutNotice(ctx, ctx.clock.now(), STALE_SCAN_BATCH)) {
    ctx.tx.run(() => {
      if (!noteStale(ctx, v.id, v.accountId)) return;
      ctx.outbox.emit(eventFor("STALE"), v.accountId, {
        asset_id: v.assetId,
        attestation_id: v.id,
        seq: v.seq,
        from: "VERIFIED",
        to: "STALE",
        previous_attestation_id: null,
        previous_seq: null,
        at: isoTime(v.expiresAt),
      });
      sent++;
    });
  }
  return sent;
}
