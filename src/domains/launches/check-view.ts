/** A reserve check as responses show it, and when it counts as stale. */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import type { EvidenceRef } from "../evidence/index.ts";
import type { CheckRow, LaunchRow } from "./store.ts";

/** A check older than this many intervals is stale: the scheduled ones stopped arriving. */
export const STALE_AFTER_INTERVALS = 2;

export const staleAt = (launch: LaunchRow, check: CheckRow): number => check.checked_at + STALE_AFTER_INTERVALS * launch.interval_s * 1000;

export const isStale = (ctx: Context, launch: LaunchRow, check: CheckRow): boolean => ctx.clock.now() > staleAt(launch, check);

export function checkView(c: CheckRow) {
  return {
    seq: c.seq,
    status: c.status,
    trigger: c.trigger,
    reserves: c.reserves_figure,
    reserves_units: c.reserves_units,
    supply_units: c.supply_units,
    decimals: c.decimals,
    chain_id: c.chain_id,
    token: c.token,
    block_number: c.block_number,
    evidence: c.evidence === null ? null : (JSON.parse(c.evidence) as EvidenceRef),
    reason: c.reason,
    checked_at: isoTime(c.checked_at),
  };
}
