/**
 * A launch's actions log: every check, binding, mint authorization, distribution, NAV figure,
 * redemption and retirement, in order, append-only (no route changes or removes an entry) and
 * hash-chained: entry_hash = sha256(canonical JSON of {launch_id, seq, kind, data, created_at,
 * prev_hash}), prev_hash the previous entry's (64 zeros for the first), so a reader holding any
 * page can recompute it and notice an entry rewritten or dropped.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { isoTime } from "../../core/clock.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type ActionRow, insertAction, lastAction } from "./store.ts";

export const GENESIS_HASH = "0".repeat(64);

export type ActionKind = "created" | "token_bound" | "check" | "mint_authorization" | "distribution" | "nav" | "redemption" | "retired" | "settings_changed" | "subscription_set" | "monthly_fee";

export const entryHash = (e: { launch_id: string; seq: number; kind: string; data: Record<string, unknown>; created_at: number; prev_hash: string }): string =>
  sha256Hex(canonicalJson({ launch_id: e.launch_id, seq: e.seq, kind: e.kind, data: e.data, created_at: e.created_at, prev_hash: e.prev_hash }));

/** Appends one entry; call inside the write transaction that makes the change it records. */
export function appendAction(ctx: Context, launchId: string, kind: ActionKind, data: Record<string, unknown>): ActionRow {
  const prev = lastAction(ctx, launchId);
  const seq = (prev?.seq ?? 0) + 1;
  const prevHash = prev?.entry_hash ?? GENESIS_HASH;
  const createdAt = ctx.clock.now();
  const row: ActionRow = { launch_id: launchId, seq, kind, data: canonicalJson(data), created_at: createdAt, prev_hash: prevHash, entry_hash: entryHash({ launch_id: launchId, seq, kind, data, created_at: createdAt, prev_hash: prevHash }) };
  insertAction(ctx, row);
  return row;
}

export interface ActionView {
  seq: number;
  kind: string;
  data: Record<string, unknown>;
  /** Milliseconds since the epoch, as hashed; created_at is the same instant in ISO form. */
  created_at_ms: number;
  created_at: string;
  prev_hash: string;
  entry_hash: string;
}

export const actionView = (r: ActionRow): ActionView => ({
  seq: r.seq,
  kind: r.kind,
  data: JSON.parse(r.data) as Record<string, unknown>,
  created_at_ms: r.created_at,
  created_at: isoTime(r.created_at),
  prev_hash: r.prev_hash,
  entry_hash: r.entry_hash,
});
