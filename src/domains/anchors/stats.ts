/** Anchors in aggregate: the explorer's counts and recent list, and `svc anchors status`. */
import type { Context } from "../../context.ts";
import type { AnchorStatus } from "./service.ts";

type Backend = "log" | "evm";

export interface AnchorCounts {
  roots: number;
  batches: number;
  /** Roots with an anchor in status anchored, per backend (log and evm always present). */
  anchored: Record<Backend, number>;
}

export function anchorCounts(ctx: Context): AnchorCounts {
  const anchored = ctx.db.query<{ backend: Backend; n: number }, []>("SELECT backend, count(*) AS n FROM anchors WHERE status = 'anchored' GROUP BY backend").all();
  return {
    roots: ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM merkle_roots").get()!.n,
    batches: ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM receipt_batches").get()!.n,
    anchored: { log: 0, evm: 0, ...Object.fromEntries(anchored.map((r) => [r.backend, r.n])) },
  };
}

export interface RecentAnchor {
  root: string;
  backend: Backend;
  status: AnchorStatus;
  external_id: string | null;
  created_at: number;
  confirmed_at: number | null;
}

/** The newest anchors, newest first. */
export function recentAnchors(ctx: Context, limit: number): RecentAnchor[] {
  return ctx.db
    .query<RecentAnchor, [number]>("SELECT root, backend, status, external_id, created_at, confirmed_at FROM anchors ORDER BY created_at DESC, id DESC LIMIT ?")
    .all(limit);
}

/** True when the root has at least one anchor in status anchored. */
export function isRootAnchored(ctx: Context, root: string): boolean {
  return ctx.db.query("SELECT 1 FROM anchors WHERE root = ? AND status = 'anchored'").get(root) !== null;
}

/** Anchors per backend and status, for the operator. */
export function anchorTally(ctx: Context): { backend: string; status: string; n: number }[] {
  return ctx.db.query<{ backend: string; status: string; n: number }, []>("SELECT backend, status, count(*) AS n FROM anchors GROUP BY backend, status ORDER BY backend, status").all();
}

/** Why open evm anchors have not gone through: the commonest recorded errors. */
export function stuckEvmAnchors(ctx: Context, limit = 5): { status: string; last_error: string; n: number }[] {
  return ctx.db
    .query<{ status: string; last_error: string; n: number }, [number]>(
      "SELECT status, last_error, count(*) AS n FROM anchors WHERE backend = 'evm' AND status != 'anchored' AND last_error IS NOT NULL GROUP BY status, last_error ORDER BY n DESC LIMIT ?",
    )
    .all(limit);
}

/**
 * The highest receipt seq S such that every receipt up to S lies under a periodic batch root
 * with an anchor in status anchored (0 when there is none): a prefix, so a batch whose anchor
 * is still pending holds back every later one.
 */
export function anchoredReceiptSeq(ctx: Context): number {
  const open = ctx.db
    .query<{ s: number | null }, []>(
      "SELECT min(first_receipt_seq) AS s FROM receipt_batches b WHERE NOT EXISTS (SELECT 1 FROM anchors a WHERE a.root = b.root AND a.status = 'anchored')",
    )
    .get()?.s;
  const last =
    open === null || open === undefined
      ? ctx.db.query<{ s: number | null }, []>("SELECT max(last_receipt_seq) AS s FROM receipt_batches").get()?.s
      : ctx.db.query<{ s: number | null }, [number]>("SELECT max(last_receipt_seq) AS s FROM receipt_batches WHERE last_receipt_seq < ?").get(open)?.s;
  return last ?? 0;
}
