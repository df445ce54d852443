/**
 * Relays, the owner's side (spec §4.4, session routes): create a relay of one or more objects
 * behind a share link, list the account's relays, revoke one. The rules (docs/relays.md):
 *
 * - The link's secret is shown once (share_url) and kept as sha256 only; a pin, when set, is
 *   kept as an HMAC keyed by that secret (link.ts).
 * - Each object's bytes are sealed at rest (core/seal.ts) with the AAD bound to the relay and
 *   the object. Names and content types are metadata, in clear.
 * - Every relay ends: expires_at or ttl_secs (default relays.default_ttl_secs, at most
 *   relays.max_ttl_secs). max_accesses caps how often it is opened.
 * - Per account: at most MAX_LIVE_RELAYS relays holding content at once, and at most
 *   relays.max_stored_bytes_per_account bytes in them (409 beyond either).
 * - Revoking destroys the ciphertext and the access tokens at once; the row stays, content-free.
 *   Another account's relay is "not found", like one that does not exist.
 */
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { MAX_LIVE_RELAYS, MIN_TTL_SECS, RELAYS_LIST_CAP } from "./limits.ts";
import { newRelaySecret, pinMac, shareUrl } from "./link.ts";
import { destroyContent, heldByAccount, objectAad, type ObjectRow, objectsOf, relayById, type RelayRow, relayView, type RelayView } from "./store.ts";

export interface RelayObjectInput {
  name?: string;
  content_type?: string;
  text?: string;
  data_b64?: string;
}

export interface CreateRelayInput {
  name: string | null;
  objects: RelayObjectInput[];
  pin: string | null;
  /** Epoch ms, or null. */
  expiresAt: number | null;
  ttlSecs: number | null;
  maxAccesses: number | null;
  viewOnly: boolean;
}

export interface CreatedRelay {
  relay: RelayView;
  share_url: string;
  secret: string;
}

const TEXT_DEFAULT_TYPE = "text/plain; charset=utf-8";
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Lower-cased type and subtype, parameters kept as given: the value is compared by prefix (image/, text/). */
const normalType = (value: string): string => {
  const [essence, ...params] = value.split(";");
  return [essence!.trim().toLowerCase(), ...params.map((p) => p.trim())].join("; ");
};

function decodeObject(input: RelayObjectInput, index: number, maxBytes: number): { name: string; contentType: string; bytes: Uint8Array } {
  const at = `objects[${index}]`;
  if ((input.text === undefined) === (input.data_b64 === undefined)) throw invalidField(`${at}.text`, "give text or data_b64 (exactly one)");
  let bytes: Uint8Array;
  let contentType: string;
  if (input.text !== undefined) {
    bytes = Buffer.from(input.text, "utf8");
    contentType = input.content_type ?? TEXT_DEFAULT_TYPE;
  } else {
    const b64 = input.data_b64!;
    if (input.content_type === undefined) throw invalidField(`${at}.content_type`, "is required with data_b64");
    // 4 characters carry 3 bytes: refuse before decoding what could not fit.
    if (Math.floor((b64.length * 3) / 4) > maxBytes + 3) throw relayTooLarge(maxBytes);
    if (!BASE64.test(b64) || b64.replace(/=+$/, "").length % 4 === 1) throw invalidField(`${at}.data_b64`, "is not base64");
    bytes = new Uint8Array(Buffer.from(b64, "base64"));
    contentType = input.content_type;
  }
  return { name: input.name ?? `object-${index + 1}`, contentType: normalType(contentType), bytes };
}

const relayTooLarge = (max: number): ApiError =>
  new ApiError(413, "relay_too_large", `objects: their bytes together exceed ${max} (relays.max_relay_bytes)`, { param: "objects", limit_bytes: max });

function expiryOf(ctx: Context, input: CreateRelayInput, now: number): number {
  const maxSecs = ctx.config.relays.max_ttl_secs;
  if (input.expiresAt !== null && input.ttlSecs !== null) throw invalidField("ttl_secs", "give expires_at or ttl_secs, not both");
  if (input.ttlSecs !== null) {
    if (input.ttlSecs > maxSecs) throw invalidField("ttl_secs", `must be at most ${maxSecs} (relays.max_ttl_secs)`);
    return now + input.ttlSecs * 1000;
  }
  if (input.expiresAt !== null) {
    if (input.expiresAt < now + MIN_TTL_SECS * 1000) throw invalidField("expires_at", `must be at least ${MIN_TTL_SECS} seconds from now`);
    if (input.expiresAt > now + maxSecs * 1000) throw invalidField("expires_at", `must be within ${maxSecs} seconds from now (relays.max_ttl_secs)`);
    return input.expiresAt;
  }
  return now + ctx.config.relays.default_ttl_secs * 1000;
}

/** Checks and seals the objects, then writes the relay under the account's caps in one transaction. */
export function createRelay(ctx: Context, accountId: string, input: CreateRelayInput): CreatedRelay {
  const now = ctx.clock.now();
  const cfg = ctx.config.relays;
  const expiresAt = expiryOf(ctx, input, now);
  const decoded = input.objects.map((o, i) => decodeObject(o, i, cfg.max_relay_bytes));
  const totalBytes = decoded.reduce((sum, o) => sum + o.bytes.length, 0);
  if (totalBytes > cfg.max_relay_bytes) throw relayTooLarge(cfg.max_relay_bytes);

  const id = newId("rly");
  const secret = newRelaySecret();
  // Sealed before the transaction: the write lock is held for the rows only.
  const objects: ObjectRow[] = decoded.map((o, position) => {
    const objectId = newId("rob");
    return { id: objectId, relay_id: id, position, name: o.name, content_type: o.contentType, bytes: o.bytes.length, sealed: ctx.sealer.seal(o.bytes, objectAad(id, objectId)) };
  });

  const row = ctx.tx.run(() => {
    const held = heldByAccount(ctx, accountId, now);
    if (held.relays >= MAX_LIVE_RELAYS) {
      throw new ApiError(409, "relay_limit_reached", `this account holds ${MAX_LIVE_RELAYS} live relays, the most allowed; revoke one or let one end first`, { limit: MAX_LIVE_RELAYS });
    }
    if (held.bytes + totalBytes > cfg.max_stored_bytes_per_account) {
      throw new ApiError(409, "relay_storage_full", `this account's live relays hold ${held.bytes} bytes; with ${totalBytes} more they would pass ${cfg.max_stored_bytes_per_account} (relays.max_stored_bytes_per_account)`, {
        limit_bytes: cfg.max_stored_bytes_per_account,
        held_bytes: held.bytes,
      });
    }
    const inserted = ctx.db
      .query<RelayRow, (string | number | null)[]>(
        `INSERT INTO relays (id, account_id, name, secret_sha256, pin_mac, view_only, max_accesses, object_count, total_bytes, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, accountId, input.name, sha256Hex(secret), input.pin === null ? null : pinMac(secret, input.pin), input.viewOnly ? 1 : 0, input.maxAccesses, objects.length, totalBytes, now, expiresAt)!;
    const insert = ctx.db.query("INSERT INTO relay_objects (id, relay_id, position, name, content_type, bytes, sealed) VALUES (?, ?, ?, ?, ?, ?, ?)");
    for (const o of objects) insert.run(o.id, o.relay_id, o.position, o.name, o.content_type, o.bytes, o.sealed);
    return inserted;
  });
  return { relay: relayView(row, objects, now), share_url: shareUrl(ctx, secret), secret };
}

/** The account's relays, newest first, at most RELAYS_LIST_CAP (every status). */
export function listRelays(ctx: Context, accountId: string): RelayView[] {
  const rows = ctx.db.query<RelayRow, [string, number]>("SELECT * FROM relays WHERE account_id = ? ORDER BY seq DESC LIMIT ?").all(accountId, RELAYS_LIST_CAP);
  if (!rows.length) return [];
  const objects = ctx.db
    .query<ObjectRow, [string]>("SELECT * FROM relay_objects WHERE relay_id IN (SELECT value FROM json_each(?)) ORDER BY relay_id, position")
    .all(JSON.stringify(rows.map((r) => r.id)));
  const byRelay = Map.groupBy(objects, (o) => o.relay_id);
  const now = ctx.clock.now();
  return rows.map((r) => relayView(r, byRelay.get(r.id) ?? [], now));
}

/**
 * Revokes a relay: its ciphertext and access tokens are destroyed in the transaction that marks
 * it revoked, so no access after this answer can open it. Idempotent: a second call changes
 * nothing and answers the same view.
 */
export function revokeRelay(ctx: Context, accountId: string, id: string): RelayView {
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const row = ownRelay(ctx, accountId, id);
    if (row.revoked_at === null) {
      ctx.db.query("UPDATE relays SET revoked_at = ? WHERE id = ?").run(now, row.id);
      destroyContent(ctx, row.id, "revoked", now);
    }
    return relayView(relayById(ctx, row.id)!, objectsOf(ctx, row.id), now);
  });
}

/** Another account's relay answers the same 404 as an unknown one. */
function ownRelay(ctx: Context, accountId: string, id: string): RelayRow {
  const row = relayById(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("relay");
  return row;
}
