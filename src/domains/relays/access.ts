/**
 * Relays, the opener's side (spec §4.1, public, authenticated by the link's secret: §5 rule 3).
 *
 * - POST /v1/relay-access/:secret {pin?} opens the relay: it spends one access and answers the
 *   object list (small text objects inline) and an access token that fetches the objects for
 *   relays.access_window_secs without spending more. So a relay capped at one access still
 *   hands all its objects to the one who opened it, and to no one else.
 * - POST /v1/relay-access/:secret/objects/:id {pin? | access_token?} answers one object's
 *   bytes. Without a live access token it spends an access itself (checked as opening does).
 * - An unknown secret, an expired, revoked, exhausted or locked relay, a wrong or missing pin,
 *   a dead access token and an unknown object all answer one and the same 404 (relayGone), so
 *   the answer tells nothing about which links exist or why one stopped working.
 * - A view-only relay serves only image/* and text/* objects: others answer 403
 *   relay_view_only (only to someone who holds the secret and the pin), spending nothing.
 * - A wrong or missing pin counts; at MAX_PIN_FAILURES the relay locks and its content is
 *   destroyed. Accesses are counted by one conditional UPDATE, so N openers racing for a cap of
 *   k get exactly k answers.
 *
 * Each route answers from a transaction that returns its outcome instead of throwing, so what a
 * refusal records (a pin failure, a lock) is committed with it.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, notFound } from "../../core/errors.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { INLINE_TEXT_MAX_BYTES, MAX_PIN_FAILURES, viewable } from "./limits.ts";
import { newAccessToken, pinMatches } from "./link.ts";
import { destroyContent, objectAad, type ObjectRow, objectsOf, relayBySecret, type RelayRow, statusOf } from "./store.ts";

/** The one answer for every link that does not open, whatever the reason. */
export const relayGone = (): ApiError => notFound("relay");

const viewOnlyRefused = (o: ObjectRow): ApiError =>
  new ApiError(403, "relay_view_only", `this relay is view-only: it serves image/* and text/* objects only, not ${o.content_type}`, { content_type: o.content_type });

export function accessLimiter(ctx: Context): RateLimiter {
  const perMinute = ctx.config.relays.access_per_ip_per_minute;
  return new RateLimiter(ctx.clock, { perMinute, burst: perMinute });
}

export interface OpenedRelay {
  relay_id: string;
  view_only: boolean;
  expires_at: string;
  accesses_left: number | null;
  access_token: string;
  access_expires_at: string;
  objects: { id: string; name: string; content_type: string; bytes: number; viewable: boolean; text: string | null }[];
}

type Admission = { ok: true } | { ok: false };

/**
 * Whether the secret's relay may be opened with this pin now; a wrong or missing pin is
 * recorded (and locks the relay at the limit). Inside a transaction.
 */
function admit(ctx: Context, row: RelayRow, secret: string, pin: string | undefined, now: number): Admission {
  if (statusOf(row, now) !== "open" || row.content_destroyed_at !== null) return { ok: false };
  if (row.pin_mac !== null && (pin === undefined || !pinMatches(secret, pin, row.pin_mac))) {
    const failures = row.pin_failures + 1;
    ctx.db.query("UPDATE relays SET pin_failures = ? WHERE id = ?").run(failures, row.id);
    if (failures >= MAX_PIN_FAILURES) destroyContent(ctx, row.id, "locked", now);
    return { ok: false };
  }
  return { ok: true };
}

/** Spends one access (false when a racing opener took the last one) and mints an access token. */
function spendAccess(ctx: Context, row: RelayRow, now: number): { token: string; until: number } | null {
  const until = Math.min(now + ctx.config.relays.access_window_secs * 1000, row.expires_at);
  const spent = ctx.db
    .query<{ id: string }, [number, number, string]>(
      `UPDATE relays SET accesses = accesses + 1, last_accessed_at = ?1, open_until = max(coalesce(open_until, 0), ?2)
       WHERE id = ?3 AND revoked_at IS NULL AND content_destroyed_at IS NULL AND (max_accesses IS NULL OR accesses < max_accesses)
       RETURNING id`,
    )
    .get(now, until, row.id);
  if (!spent) return null;
  const token = newAccessToken();
  ctx.db.query("INSERT INTO relay_access_tokens (token_sha256, relay_id, expires_at) VALUES (?, ?, ?)").run(sha256Hex(token), row.id, until);
  return { token, until };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function inlineText(ctx: Context, o: ObjectRow): string | null {
  if (o.sealed === null || o.bytes > INLINE_TEXT_MAX_BYTES || !/^text\//i.test(o.content_type)) return null;
  try {
    return utf8.decode(ctx.sealer.open(o.sealed, objectAad(o.relay_id, o.id)));
  } catch {
    // Not UTF-8 after all (bytes given as data_b64): the opener fetches it as bytes.
    return null;
  }
}

/** POST /v1/relay-access/:secret: opens the relay, spending one access. */
export function openRelay(ctx: Context, secret: string, pin: string | undefined): OpenedRelay {
  const now = ctx.clock.now();
  const outcome = ctx.tx.run(() => {
    const row = relayBySecret(ctx, sha256Hex(secret));
    if (!row || !admit(ctx, row, secret, pin, now).ok) return null;
    const access = spendAccess(ctx, row, now);
    if (!access) return null;
    const objects = objectsOf(ctx, row.id).map((o) => ({
      id: o.id,
      name: o.name,
      content_type: o.content_type,
      bytes: o.bytes,
      viewable: row.view_only === 0 || viewable(o.content_type),
      text: inlineText(ctx, o),
    }));
    return {
      relay_id: row.id,
      view_only: row.view_only === 1,
      expires_at: isoTime(row.expires_at),
      accesses_left: row.max_accesses === null ? null : row.max_accesses - row.accesses - 1,
      access_token: access.token,
      access_expires_at: isoTime(access.until),
      objects,
    };
  });
  if (!outcome) throw relayGone();
  return outcome;
}

export interface ObjectRequest {
  secret: string;
  objectId: string;
  pin?: string;
  accessToken?: string;
}

type Fetched = { kind: "bytes"; object: ObjectRow; bytes: Buffer; viewOnly: boolean } | { kind: "gone" } | { kind: "refused"; object: ObjectRow };

/** POST /v1/relay-access/:secret/objects/:id: one object's bytes, as a response with its content type. */
export function fetchObject(ctx: Context, req: ObjectRequest): Response {
  const now = ctx.clock.now();
  const outcome = ctx.tx.run((): Fetched => {
    const row = relayBySecret(ctx, sha256Hex(req.secret));
    if (!row) return { kind: "gone" };
    if (req.accessToken !== undefined) {
      const live = ctx.db
        .query<{ n: number }, [string, string, number]>("SELECT 1 AS n FROM relay_access_tokens WHERE token_sha256 = ? AND relay_id = ? AND expires_at > ?")
        .get(sha256Hex(req.accessToken), row.id, now);
      // A token outlives the cap it was spent against, never a revocation, the expiry or a lock.
      const ended = row.revoked_at !== null || row.content_destroyed_at !== null || now >= row.expires_at;
      if (!live || ended) return { kind: "gone" };
    } else if (!admit(ctx, row, req.secret, req.pin, now).ok) {
      return { kind: "gone" };
    }
    const object = ctx.db.query<ObjectRow, [string, string]>("SELECT * FROM relay_objects WHERE id = ? AND relay_id = ?").get(req.objectId, row.id);
    if (!object || object.sealed === null) return { kind: "gone" };
    if (row.view_only === 1 && !viewable(object.content_type)) return { kind: "refused", object };
    if (req.accessToken === undefined && !spendAccess(ctx, row, now)) return { kind: "gone" };
    return { kind: "bytes", object, bytes: ctx.sealer.open(object.sealed, objectAad(row.id, object.id)), viewOnly: row.view_only === 1 };
  });
  if (outcome.kind === "gone") throw relayGone();
  if (outcome.kind === "refused") throw viewOnlyRefused(outcome.object);
  return objectResponse(outcome.object, outcome.bytes, outcome.viewOnly);
}

/** A filename parameter pair (RFC 6266): an ASCII fallback, and the exact name in UTF-8. */
function disposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * The bytes as stored, under headers that keep them inert on svc's origin: no sniffing, a
 * sandboxed CSP (an SVG or HTML object runs no script and reaches nothing), never cached.
 * A view-only relay's objects are shown inline; others download.
 */
function objectResponse(o: ObjectRow, bytes: Buffer, viewOnly: boolean): Response {
  return new Response(bytes, {
    headers: {
      "content-type": o.content_type,
      "content-disposition": disposition(viewOnly ? "inline" : "attachment", o.name),
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    },
  });
}
