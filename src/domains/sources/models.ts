/**
 * TypeBox models of the source-set routes: closed request bodies at every level (an unknown
 * field is refused with 400 naming it, never stripped: spec §4.4 "Sources") and the exact
 * shapes served (service.ts builds them), so the OpenAPI document describes what is served.
 * Sizes come from limits.ts; docs/sources.md explains them.
 */
import { t } from "elysia";
import { Int } from "../../core/schemas.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;

const hex64 = (description: string) => t.String({ pattern: "^[0-9a-f]{64}$", error: "must be a sha256 digest: 64 lowercase hex characters", description });

const Entry = t.Object(
  {
    url: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_URL_CHARS, error: `must be an http(s) URL of at most ${L.MAX_URL_CHARS} characters`, description: "where the source is (http or https)" })),
    sha256: t.Optional(hex64("sha256 of the source's bytes (lowercase hex)")),
    label: t.String({ minLength: 1, maxLength: L.MAX_LABEL_CHARS, error: `must be 1-${L.MAX_LABEL_CHARS} characters`, description: "what the source is, for people" }),
    kind: t.String({ pattern: L.KIND_PATTERN, error: "must be a lowercase token: a-z first, then up to 31 of a-z, 0-9, _ and -", description: "e.g. web, paper, dataset, filing, code" }),
  },
  { ...closed, description: "one source: url, sha256 or both (at least one), a label and a kind" },
);

export const CreateBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: L.MAX_NAME_CHARS, error: `must be 1-${L.MAX_NAME_CHARS} characters` }),
    sources: t.Array(Entry, { minItems: 1, maxItems: L.MAX_SOURCES, error: `must be an array of 1-${L.MAX_SOURCES} sources`, description: "fingerprinted in this order" }),
    public: t.Optional(t.Boolean({ description: "true: GET /v1/sources/public/:id shows the set to anyone (default false). Fixed at creation." })),
  },
  closed,
);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const Time = t.String({ format: "date-time" });

const StoredEntry = t.Object(
  {
    kind: t.String(),
    label: t.String(),
    url: t.Optional(t.String()),
    sha256: t.Optional(t.String({ pattern: "^[0-9a-f]{64}$" })),
  },
  { ...closed, description: "the entry exactly as fingerprinted" },
);

const setFields = {
  id: t.String({ description: "sset_…" }),
  name: t.String(),
  fingerprint: t.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the canonical JSON of `sources` (docs/sources.md)" }),
  fingerprint_alg: t.String(),
  count: Int({ minimum: 1 }),
  sources: t.Array(StoredEntry),
  created_at: Time,
};

export const SourceSet = t.Object(
  {
    ...setFields,
    public: t.Boolean(),
    public_url: t.Union([t.String(), t.Null()], { description: "GET /v1/sources/public/:id when public, null otherwise" }),
    reference: t.String({ description: "how a call cites the set: svc_source_set on an inference request" }),
  },
  closed,
);

export const SetList = t.Object({ sets: t.Array(SourceSet, { maxItems: L.MAX_SETS_PER_ACCOUNT, description: "newest first, every set of the account" }) }, closed);

export const Deleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

export const PublicSet = t.Object({ ...setFields, verify: t.String({ description: "how to recompute the fingerprint and find it on a receipt" }) }, closed);
