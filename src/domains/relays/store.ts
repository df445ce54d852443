/**
 * The relays' rows and the SQL on them (tables of migrations/0031_relays.sql), shared by the
 * owner's routes (service.ts), the public access routes (access.ts) and the purge job (purge.ts).
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { MAX_PIN_FAILURES } from "./limits.ts";
import type { Relay } from "./models.ts";

export interface RelayRow {
  seq: number;
  id: string;
  account_id: string;
  name: string | null;
  secret_sha256: string;
  pin_mac: string | null;
  pin_failures: number;
  view_only: 0 | 1;
  max_accesses: number | null;
  accesses: number;
  object_count: number;
  total_bytes: number;
  created_at: number;
  expires_at: number;
  last_accessed_at: number | null;
  open_until: number | null;
  revoked_at: number | null;
  content_destroyed_at: number | null;
  destroy_reason: DestroyReason | null;
}

export interface ObjectRow {
  id: string;
  relay_id: string;
  position: number;
  name: string;
  content_type: string;
  bytes: number;
  sealed: string | null;
}

export type RelayStatus = "open" | "revoked" | "expired" | "exhausted" | "locked";
export type DestroyReason = "revoked" | "expired" | "exhausted" | "locked";
export type RelayView = Static<typeof Relay>;

/** Binds an object's ciphertext to its relay and id: JSON, so no choice of ids can make two AADs equal. */
export const objectAad = (relayId: string, objectId: string): string => JSON.stringify(["relay_objects", relayId, objectId]);

export const capped = (row: RelayRow): boolean => row.max_accesses !== null && row.accesses >= row.max_accesses;

/** Revoked and locked are for good; expiry and the cap follow from the clock and the count. */
export function statusOf(row: RelayRow, now: number): RelayStatus {
  if (row.revoked_at !== null) return "revoked";
  if (row.pin_failures >= MAX_PIN_FAILURES) return "locked";
  if (now >= row.expires_at) return "expired";
  if (capped(row)) return "exhausted";
  return "open";
}

export const relayBySecret = (ctx: Context, secretSha256: string): RelayRow | null =>
  ctx.db.query<RelayRow, [string]>("SELECT * FROM relays WHERE secret_sha256 = ?").get(secretSha256);

export const relayById = (ctx: Context, id: string): RelayRow | null => ctx.db.query<RelayRow, [string]>("SELECT * FROM relays WHERE id = ?").get(id);

export const objectsOf = (ctx: Context, relayId: string): ObjectRow[] =>
  ctx.db.query<ObjectRow, [string]>("SELECT * FROM relay_objects WHERE relay_id = ? ORDER BY position").all(relayId);

/** Relays whose content is still held and not past expiry: what the per-account caps count. */
export function heldByAccount(ctx: Context, accountId: string, now: number): { relays: number; bytes: number } {
  return ctx.db
    .query<{ relays: number; bytes: number }, [string, number]>(
      "SELECT count(*) AS relays, coalesce(sum(total_bytes), 0) AS bytes FROM relays WHERE account_id = ? AND content_destroyed_at IS NULL AND expires_at > ?",
    )
    .get(accountId, now)!;
}

/**
 * Destroys a relay's ciphertext and its access tokens; the rows stay (content-free). Call inside
 * a transaction. A relay already destroyed keeps its first reason and time.
 */
export function destroyContent(ctx: Context, relayId: string, reason: DestroyReason, now: number): void {
  ctx.db.query("UPDATE relay_objects SET sealed = NULL WHERE relay_id = ?").run(relayId);
  ctx.db.query("DELETE FROM relay_access_tokens WHERE relay_id = ?").run(relayId);
  ctx.db
    .query("UPDATE relays SET content_destroyed_at = coalesce(content_destroyed_at, ?1), destroy_reason = coalesce(destroy_reason, ?2) WHERE id = ?3")
    .run(now, reason, relayId);
}

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function relayView(row: RelayRow, objects: ObjectRow[], now: number): RelayView {
  return {
    id: row.id,
    name: row.name,
    status: statusOf(row, now),
    view_only: row.view_only === 1,
    pin_required: row.pin_mac !== null,
    max_accesses: row.max_accesses,
    accesses: row.accesses,
    accesses_left: row.max_accesses === null ? null : Math.max(0, row.max_accesses - row.accesses),
    objects: objects.map((o) => ({ id: o.id, name: o.name, content_type: o.content_type, bytes: o.bytes })),
    total_bytes: row.total_bytes,
    content_available: row.content_destroyed_at === null && now < row.expires_at,
    created_at: isoTime(row.created_at),
    expires_at: isoTime(row.expires_at),
    last_accessed_at: time(row.last_accessed_at),
    revoked_at: time(row.revoked_at),
    content_destroyed_at: time(row.content_destroyed_at),
  };
}
