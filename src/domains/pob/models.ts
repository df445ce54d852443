/**
 * TypeBox models of the /v1/pob routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the exact shapes served (view.ts), so the OpenAPI document
 * describes what is served. docs/pob.md explains the fields.
 */
import { t } from "elysia";
import { Int, Nullable, Sha256Hex } from "../../core/schemas.ts";
import { EvidenceReference, EvidenceSourceInput, EvidenceSourceView } from "../evidence/index.ts";
import { Address, Signature } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const DECIMAL = "^\\d{1,40}(\\.\\d{1,40})?$";

const Name = t.String({ minLength: 1, maxLength: 100, pattern: "\\S", error: "must be 1 to 100 characters, not all whitespace", description: "shown on the public page; the slug is derived from it once" });
const Endpoint = t.String({ minLength: 1, maxLength: 2048, description: "the custodian's HTTPS endpoint answering JSON (GET); its URL without the query string is published as the source reference" });
const Pointer = t.String({ maxLength: 512, description: 'RFC 6901 pointer to the reserve figure in the answer, e.g. "/reserves/usd"' });
const IntervalS = Int({ minimum: 1, maximum: L.MAX_INTERVAL_SECS, description: `seconds between scheduled checks; at least pob.min_interval_secs (60 by default), at most ${L.MAX_INTERVAL_SECS}` });
const Credential = t.String({ minLength: 1, maxLength: 4096, description: "sent as Authorization: Bearer <credential>; sealed at rest and never shown" });

export const CreateBody = t.Object(
  {
    name: Name,
    endpoint: Endpoint,
    credential: t.Optional(Credential),
    pointer: Pointer,
    interval_s: t.Optional(IntervalS),
    claimed_supply: t.Optional(
      t.String({ pattern: DECIMAL, maxLength: 81, error: "must be a non-negative decimal as text, e.g. \"1000000.50\"", description: "a fixed supply (liability) the reserve must cover; in the reserve figure's unit" }),
    ),
    /** Read at each check for the supply the reserve must cover: erc20_supply, or any source with a pointer; not with claimed_supply. */
    supply_source: t.Optional(EvidenceSourceInput),
  },
  closed,
);

export const PatchBody = t.Object(
  {
    name: t.Optional(Name),
    endpoint: t.Optional(Endpoint),
    credential: t.Optional(Nullable(Credential)),
    pointer: t.Optional(Pointer),
    interval_s: t.Optional(IntervalS),
  },
  { ...closed, description: "only name, endpoint, credential (null removes it), pointer and interval_s; any other field is refused and named" },
);

export const SubjectParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });
export const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }) });

export const ChecksQuery = t.Object({
  limit: t.Optional(t.String({ description: `page size: a whole number from ${L.CHECKS_LIMIT.min}, default ${L.CHECKS_LIMIT.default}; above ${L.CHECKS_LIMIT.max} is clamped to ${L.CHECKS_LIMIT.max}` })),
  before_seq: t.Optional(t.String({ description: "only checks with a lower seq (keyset paging: pass back next_before_seq)" })),
});

const Status = t.Union(
  [t.Literal("BACKED"), t.Literal("UNDERBACKED"), t.Literal("REPORTED"), t.Literal("UNAVAILABLE")],
  { description: "BACKED: reserve ≥ supply; UNDERBACKED: reserve < supply; REPORTED: the reserve figure alone (no supply named); UNAVAILABLE: a source did not answer (no figures)" },
);

export const Check = t.Object(
  {
    slug: t.String(),
    seq: t.Integer({ minimum: 1 }),
    checked_at: Time,
    status: Status,
    reserve: Nullable(t.String({ description: "the reserve figure read, canonical decimal text; null when UNAVAILABLE" })),
    supply: Nullable(t.String({ description: "the supply compared against; null when none is named or UNAVAILABLE" })),
    reason: Nullable(t.String({ description: "why the check is UNAVAILABLE; null otherwise" })),
    triggered_by: t.Union([t.Literal("schedule"), t.Literal("owner")]),
    line: t.String({ description: "the canonical line: pob|v1|slug|seq|checked_at|status|reserve|supply|reserve_sha256|supply_sha256 (\"-\" for no value)" }),
    line_sha256: Sha256Hex(),
    signature: Signature,
    signer: Address,
    evidence: t.Object(
      { reserve: Nullable(EvidenceReference), supply: Nullable(EvidenceReference) },
      { ...closed, description: "the retrievals the line's fingerprints come from; null for a source not retrieved" },
    ),
  },
  closed,
);

const SubjectStatus = t.Union([t.Literal("active"), t.Literal("retired")]);

export const Subject = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String({ description: "the public name: GET /v1/pob/public/:slug; fixed at creation and never reused" }),
    status: SubjectStatus,
    interval_s: t.Integer(),
    reserve_source: EvidenceSourceView,
    claimed_supply: Nullable(t.String()),
    supply_source: Nullable(EvidenceSourceView),
    next_check_at: Nullable(t.String({ format: "date-time", description: "when the next scheduled check falls due; null once retired" })),
    checks: t.Integer({ minimum: 0, description: "checks published so far" }),
    latest_check: Nullable(Check),
    public_path: t.String(),
    created_at: Time,
    updated_at: Time,
    retired_at: Nullable(Time),
  },
  closed,
);

export const SubjectList = t.Object({ subjects: t.Array(Subject, { maxItems: L.SUBJECTS_LIST_CAP, description: `newest first, at most ${L.SUBJECTS_LIST_CAP}` }) }, closed);

const PublicSource = t.Object(
  { kind: t.String(), label: Nullable(t.String()), source_ref: t.String(), pointer: Nullable(t.String()), chain: Nullable(t.String()), token: Nullable(t.String()) },
  closed,
);

export const PublicSubject = t.Object(
  {
    slug: t.String(),
    name: t.String(),
    status: SubjectStatus,
    interval_s: t.Integer(),
    reserve_source: PublicSource,
    claimed_supply: Nullable(t.String()),
    supply_source: Nullable(PublicSource),
    checks: t.Integer({ minimum: 0 }),
    latest_check: Nullable(Check),
    created_at: Time,
    retired_at: Nullable(Time),
  },
  closed,
);

export const Directory = t.Object(
  {
    subjects: t.Array(PublicSubject, { maxItems: L.DIRECTORY_CAP, description: `active and retired, newest first, at most ${L.DIRECTORY_CAP}` }),
    count: t.Integer({ minimum: 0, description: "subjects in the directory (may exceed the page)" }),
    ordered_by: t.Literal("created_at_desc"),
  },
  closed,
);

const NextBeforeSeq = Nullable(t.Integer({ minimum: 1, description: "pass as ?before_seq= for the next page; null: no more checks" }));

export const OwnerChecks = t.Object(
  { checks: t.Array(Check, { description: "newest first; UNAVAILABLE checks included" }), subject_id: t.String(), slug: t.String(), next_before_seq: NextBeforeSeq },
  closed,
);

export const PublicChecks = t.Object(
  { checks: t.Array(Check, { description: "newest first; failures (UNAVAILABLE) are never filtered" }), slug: t.String(), next_before_seq: NextBeforeSeq },
  closed,
);
