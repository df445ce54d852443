/**
 * GET /v1/explorer (public): what anyone may see of svc's proofs. Aggregate counts (receipts
 * minted, runs, roots, anchors per backend), the most recent receipts their owners chose to
 * share, and the most recent anchors. Nothing about an unshared receipt appears here: not its
 * id, kind, cost or time. Passports join this page when they exist (spec §4.1).
 */
import { isoTime } from "../../core/clock.ts";
import type { Static } from "elysia";
import type { Context } from "../../context.ts";
import { anchorCounts, recentAnchors } from "../anchors/index.ts";
import { countRuns, receiptCounts, recentlyShared } from "../receipts/index.ts";
import type * as M from "./models.ts";

export const RECENT_LIMIT = 20;

export type ExplorerPage = Static<typeof M.ExplorerPage>;

function counts(ctx: Context): ExplorerPage["counts"] {
  const receipts = receiptCounts(ctx);
  const anchors = anchorCounts(ctx);
  return {
    receipts_minted: receipts.minted,
    receipts_shared: receipts.shared,
    // Run ids are per account: the same id in two accounts is two runs.
    runs: countRuns(ctx),
    roots: anchors.roots,
    batches: anchors.batches,
    roots_anchored: anchors.anchored,
  };
}

export function explorerPage(ctx: Context): ExplorerPage {
  const base = ctx.config.public_url;
  const shared = recentlyShared(ctx, RECENT_LIMIT);
  const anchors = recentAnchors(ctx, RECENT_LIMIT);
  return {
    counts: counts(ctx),
    recent_shared_receipts: shared.map((r) => ({
      id: r.id,
      kind: r.kind,
      status: r.status,
      cost_micro_usd: r.cost_micro_usd,
      created_at: isoTime(r.created_at),
      shared_at: isoTime(r.shared_at),
      url: `${base}/v1/receipts/shared/${r.id}`,
    })),
    recent_anchors: anchors.map((a) => ({
      root: a.root,
      backend: a.backend,
      status: a.status,
      external_id: a.external_id,
      created_at: isoTime(a.created_at),
      confirmed_at: a.confirmed_at === null ? null : isoTime(a.confirmed_at),
      url: `${base}/v1/anchors/${a.root}`,
    })),
    passports: [],
    note: "Passports join this page when agent passports are built (spec §4.1); only receipts their owners share are listed.",
  };
}
