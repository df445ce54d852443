/**
 * TypeBox models of the relay routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the exact shapes served, so the OpenAPI document describes what is
 * served. Sizes come from limits.ts and config.ts; docs/relays.md explains them.
 */
import { Instant } from "../../core/instant.ts";
import { type DocumentDecoration, t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import {
  CONTENT_TYPE_PATTERN,
  CONTENT_TYPE_REASON,
  INLINE_TEXT_MAX_BYTES,
  MAX_ACCESSES,
  MAX_CONTENT_TYPE_CHARS,
  MAX_NAME_CHARS,
  MAX_OBJECTS,
  MAX_PIN_CHARS,
  MIN_PIN_CHARS,
  MIN_TTL_SECS,
  RELAYS_LIST_CAP,
} from "./limits.ts";

const closed = { additionalProperties: false } as const;

/** No control characters and no path separators: a name ends up in a Content-Disposition filename. */
const NAME_PATTERN = "^[^\\u0000-\\u001f\\u007f/\\\\]+$";
const NAME_REASON = `must be 1-${MAX_NAME_CHARS} characters, without control characters, / or \\`;
const Name = (description: string) => t.String({ minLength: 1, maxLength: MAX_NAME_CHARS, pattern: NAME_PATTERN, error: NAME_REASON, description });

export const RelayObjectInput = t.Object(
  {
    name: t.Optional(Name('the object\'s file name, shown to whoever opens the relay; default "object-<n>" (stored in clear: metadata, not content)')),
    content_type: t.Optional(
      t.String({
        maxLength: MAX_CONTENT_TYPE_CHARS,
        pattern: CONTENT_TYPE_PATTERN,
        error: CONTENT_TYPE_REASON,
        description: `${CONTENT_TYPE_REASON}; required with data_b64, default "text/plain; charset=utf-8" with text (stored in clear)`,
      }),
    ),
    text: t.Optional(t.String({ description: "the object as UTF-8 text (give text or data_b64, not both)" })),
    data_b64: t.Optional(t.String({ description: "the object's bytes, base64 (standard or URL-safe alphabet)" })),
  },
  closed,
);

export const CreateBody = t.Object(
  {
    name: t.Optional(Nullable(Name("a label for the owner's list; never shown to whoever opens the relay"))),
    objects: t.Array(RelayObjectInput, { minItems: 1, maxItems: MAX_OBJECTS, description: `1-${MAX_OBJECTS} objects; their decoded bytes together at most relays.max_relay_bytes` }),
    pin: t.Optional(
      t.String({
        minLength: MIN_PIN_CHARS,
        maxLength: MAX_PIN_CHARS,
        error: `must be ${MIN_PIN_CHARS}-${MAX_PIN_CHARS} characters`,
        description: `a second secret (${MIN_PIN_CHARS}-${MAX_PIN_CHARS} characters) the opener must send; give it to them by another channel`,
      }),
    ),
    expires_at: t.Optional(
      Instant({ description: "when the relay ends (give expires_at or ttl_secs, not both); within relays.max_ttl_secs" }),
    ),
    ttl_secs: t.Optional(Int({ minimum: MIN_TTL_SECS, description: `seconds from now until the relay ends, at least ${MIN_TTL_SECS}; default relays.default_ttl_secs, at most relays.max_ttl_secs` })),
    max_accesses: t.Optional(Nullable(Int({ minimum: 1, maximum: MAX_ACCESSES, description: `how many times the relay may be opened (1-${MAX_ACCESSES}); absent or null: no cap, the expiry alone ends it` }))),
    view_only: t.Optional(t.Boolean({ description: "serve only image/* and text/* objects, inline (others are refused 403 relay_view_only); default false" })),
  },
  closed,
);

export const RelayParams = t.Object({ id: t.String({ maxLength: 100, description: "rly_… id" }) });
// No pattern or length on the secret and object id: a malformed one is as unknown as a wrong one (404, not 400).
export const AccessParams = t.Object({ secret: t.String({ description: "the link's secret (rls_…), from share_url" }) });
export const ObjectParams = t.Object({ secret: t.String({ description: "the link's secret (rls_…)" }), id: t.String({ description: "rob_… object id, from the access answer" }) });

const Pin = t.String({ maxLength: MAX_PIN_CHARS, description: "the relay's pin, when it has one" });
export const AccessBody = t.Object({ pin: t.Optional(Pin) }, closed);
export const ObjectBody = t.Object(
  {
    pin: t.Optional(Pin),
    access_token: t.Optional(t.String({ maxLength: 200, description: "from the access answer: fetches without spending another access while it lasts (then the pin is not needed)" })),
  },
  closed,
);

const Time = t.String({ format: "date-time" });

export const RelayStatus = t.Union([t.Literal("open"), t.Literal("revoked"), t.Literal("expired"), t.Literal("exhausted"), t.Literal("locked")], {
  description: "open; revoked (by the owner); expired; exhausted (max_accesses reached); locked (too many wrong pins)",
});

const ObjectMeta = {
  id: t.String(),
  name: t.String(),
  content_type: t.String(),
  bytes: Int({ minimum: 0 }),
};

export const Relay = t.Object(
  {
    id: t.String(),
    name: Nullable(t.String()),
    status: RelayStatus,
    view_only: t.Boolean(),
    pin_required: t.Boolean(),
    max_accesses: Nullable(Int({ minimum: 1 })),
    accesses: Int({ minimum: 0, description: "times the relay was opened" }),
    accesses_left: Nullable(Int({ minimum: 0, description: "null: no cap" })),
    objects: t.Array(t.Object(ObjectMeta, closed)),
    total_bytes: Int({ minimum: 0 }),
    content_available: t.Boolean({ description: "false once the ciphertext was destroyed (revoked, expired, exhausted or locked)" }),
    created_at: Time,
    expires_at: Time,
    last_accessed_at: Nullable(Time),
    revoked_at: Nullable(Time),
    content_destroyed_at: Nullable(Time),
  },
  closed,
);

export const CreatedRelay = t.Object(
  {
    relay: Relay,
    share_url: t.String({ description: "POST it (with {pin} if set) to open the relay; shown this once" }),
    secret: t.String({ pattern: "^rls_", description: "the link's secret, the last segment of share_url; shown this once (svc keeps only its sha256)" }),
  },
  closed,
);

export const RelayList = t.Object({ relays: t.Array(Relay, { maxItems: RELAYS_LIST_CAP, description: `newest first, at most ${RELAYS_LIST_CAP}` }) }, closed);

export const Opened = t.Object(
  {
    relay_id: t.String(),
    view_only: t.Boolean(),
    expires_at: Time,
    accesses_left: Nullable(Int({ minimum: 0, description: "after this access; null: no cap" })),
    access_token: t.String({ pattern: "^rat_", description: "fetches this relay's objects without spending another access until access_expires_at" }),
    access_expires_at: Time,
    objects: t.Array(
      t.Object(
        {
          ...ObjectMeta,
          viewable: t.Boolean({ description: "false: this view-only relay refuses to serve it (403 relay_view_only)" }),
          text: Nullable(t.String({ description: `a text/* object of at most ${INLINE_TEXT_MAX_BYTES} bytes, inline (UTF-8); otherwise null: fetch it` })),
        },
        closed,
      ),
    ),
  },
  closed,
);

const ERROR_REF = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };

/** The object route's OpenAPI responses: the bytes as stored, or refused. */
export const ObjectResponses: NonNullable<DocumentDecoration["responses"]> = {
  200: {
    description: "The object's bytes with its content type; Content-Disposition attachment, or inline for a view-only relay",
    content: { "*/*": { schema: { type: "string" as const, format: "binary" } } },
  },
  403: { description: "relay_view_only: a view-only relay serves only image/* and text/* objects", ...ERROR_REF },
};
