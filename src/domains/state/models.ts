/**
 * TypeBox models of the state routes: closed request bodies and the response shapes the
 * OpenAPI document shows. Limits come from limits.ts; docs/state.md explains them.
 */
import { t } from "elysia";
import { Int } from "../../core/schemas.ts";
import { DEFAULT_NAMESPACE, KEY_PATTERN, KEY_REASON, MAX_KEYS_LISTED, MAX_VALUE_BYTES, NAMESPACE_PATTERN, NAMESPACE_REASON } from "./limits.ts";

const closed = { additionalProperties: false } as const;

export const Key = t.String({ pattern: KEY_PATTERN, error: KEY_REASON, description: KEY_REASON });
export const Namespace = t.String({ pattern: NAMESPACE_PATTERN, error: NAMESPACE_REASON, description: `${NAMESPACE_REASON}; default "${DEFAULT_NAMESPACE}"` });

export const KeyParams = t.Object({ key: Key });
export const NamespaceQuery = t.Object({ namespace: t.Optional(Namespace) });
export const ListQuery = t.Object({
  namespace: t.Optional(Namespace),
  prefix: t.Optional(t.String({ maxLength: 256, error: "must be at most 256 characters", description: "only keys starting with this" })),
});

export const PutBody = t.Object(
  {
    value: t.Unknown({ description: `any JSON value (null included); its JSON text at most ${MAX_VALUE_BYTES} bytes (256 KiB) in UTF-8` }),
    namespace: t.Optional(Namespace),
  },
  closed,
);

const Time = t.String({ format: "date-time" });
const Version = Int({ minimum: 1, description: "1 when the key was created, +1 on every write; restarts at 1 after a delete (use the ETag to tell writes apart)" });

export const Entry = t.Object(
  { key: t.String(), namespace: t.String(), value: t.Unknown(), version: Version, updated_at: Time },
  { ...closed, description: "the value as written; the ETag response header identifies this write" },
);

export const Written = t.Object(
  { key: t.String(), namespace: t.String(), version: Version, created: t.Boolean({ description: "true when this PUT created the key" }), updated_at: Time },
  closed,
);

export const Deleted = t.Object({ key: t.String(), namespace: t.String(), deleted: t.Literal(true) }, closed);

export const KeyList = t.Object(
  {
    keys: t.Array(t.String(), { maxItems: MAX_KEYS_LISTED, description: `key names only, ascending byte order; at most ${MAX_KEYS_LISTED} (more: the first ${MAX_KEYS_LISTED}, and the x-svc-truncated header)` }),
    namespace: t.String(),
  },
  closed,
);
