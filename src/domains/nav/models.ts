/**
 * TypeBox models of the NAV routes: closed request bodies (an unknown field is refused and named)
 * and the exact shapes served (spec §2.5, every field), so the OpenAPI document describes what is
 * served. Sizes come from limits.ts; docs/nav.md explains every field.
 */
import { Instant } from "../../core/instant.ts";
import { t } from "elysia";
import { Int, MicroUsd, Nullable, SignedMicroUsd } from "../../core/schemas.ts";
import { EvidenceSourceInput } from "../evidence/index.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const STATUSES = ["VERIFIED", "STALE", "UNAVAILABLE", "DISCREPANCY"] as const;
export type NavStatus = (typeof STATUSES)[number];
export const SUPPLY_CHECKS = ["MATCHED", "MISMATCH", "NOT_CHECKED", "UNAVAILABLE"] as const;
export const PRICE_CHECKS = ["MATCHED", "MISMATCH", "SINGLE_SOURCE", "UNAVAILABLE"] as const;

const Status = t.Union([t.Literal("VERIFIED"), t.Literal("STALE"), t.Literal("UNAVAILABLE"), t.Literal("DISCREPANCY")]);
const SupplyCheck = t.Union([t.Literal("MATCHED"), t.Literal("MISMATCH"), t.Literal("NOT_CHECKED"), t.Literal("UNAVAILABLE")], {
  description: "reported against on-chain supply: NOT_CHECKED when the book names no on-chain source",
});
const PriceCheck = t.Union([t.Literal("MATCHED"), t.Literal("MISMATCH"), t.Literal("SINGLE_SOURCE"), t.Literal("UNAVAILABLE")], {
  description: "the price sources of each position against each other: SINGLE_SOURCE when no position has two",
});

// ---- requests ------------------------------------------------------------------------------

export const AssetId = t.String({
  pattern: L.ASSET_ID_PATTERN,
  error: `must be 1-128 characters: letters, digits, . _ : - (starting with a letter or digit); not ${L.RESERVED_ASSET_IDS.join(" or ")}`,
  description: "the owner's name for the asset; unique per account, and among published records across accounts (docs/nav.md)",
});

const Holding = t.Object(
  {
    instrument: t.String({ minLength: 1, maxLength: L.MAX_INSTRUMENT_CHARS, description: "the position's name; sealed with the book, never shown" }),
    quantity: t.String({ pattern: L.QUANTITY_PATTERN, error: "must be a non-negative decimal string, at most 24 integer and 18 fractional digits", description: "units held, decimal text" }),
    price_sources: t.Array(EvidenceSourceInput, {
      minItems: 1,
      maxItems: L.MAX_PRICE_SOURCES,
      description: `1-${L.MAX_PRICE_SOURCES} sources of kind price (USD per unit); with two or more they must agree within tolerance_bps, and the lowest is valued`,
    }),
  },
  closed,
);

export const CalculateBody = t.Object(
  {
    asset_id: AssetId,
    holdings: t.Array(Holding, { minItems: 1, maxItems: L.MAX_HOLDINGS, description: "the holdings book: sealed, never published; only its book_commitment is" }),
    liabilities_micro_usd: MicroUsd({ description: "liabilities subtracted from the gross asset value (integer micro-USD)" }),
    supply: t.Object(
      {
        reported_supply_micro_units: Int({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "the supply the issuer reports, in millionths of a unit" }),
        // a source of kind erc20_supply: the token's totalSupply(), reconciled against the reported supply
        onchain: t.Optional(EvidenceSourceInput),
      },
      closed,
    ),
    supporting_sources: t.Optional(
      t.Array(EvidenceSourceInput, {
        maxItems: L.MAX_SUPPORTING_SOURCES,
        description: "custodian or third_party_attestation sources retrieved and cited (fingerprinted) with the record; not used in the arithmetic; each is required",
      }),
    ),
    unit_scale: t.Optional(Int({ minimum: 1, maximum: L.MAX_UNIT_SCALE, description: `supply micro-units per unit of nav_per_unit_micro_usd; default ${L.DEFAULT_UNIT_SCALE} (per whole unit)` })),
    tolerance_bps: t.Optional(Int({ minimum: 0, maximum: L.MAX_TOLERANCE_BPS, description: "how far supply and price sources may differ, in basis points; default 50" })),
    max_age_secs: t.Optional(Int({ minimum: L.MIN_MAX_AGE_SECS, maximum: L.MAX_MAX_AGE_SECS, description: "how long the valuation stays fresh; default 86400" })),
    valuation_timestamp: t.Optional(
      Instant({ error: "must be an RFC 3339 date-time with a time zone, not in the future", description: "the book's as-of time; default the calculation time" }),
    ),
  },
  closed,
);

export const RefreshBody = t.Object(
  {
    revalue: t.Optional(
      t.Boolean({
        description:
          "false (default): restate the latest version (figures carried, freshness and on-chain supply observed now: STALE once past freshness). true: value the same sealed book again at prices read now (charged as a calculation)",
      }),
    ),
  },
  closed,
);

export const PublishBody = t.Object({ nav_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "the version to publish; default the latest" })) }, closed);

export const AssetParams = t.Object({ asset_id: t.String({ minLength: 1, maxLength: 200 }) });
export const NavParams = t.Object({ nav_id: t.String({ minLength: 1, maxLength: 100 }) });
export const RecordQuery = t.Object({ nav_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "a published version of the asset; default its latest published" })) });
export const HistoryQuery = t.Object({ limit: t.Optional(t.String({ description: "1-200, default 50; above 200 is clamped" })) });
export const OwnerHistoryQuery = t.Object({
  asset_id: t.String({ minLength: 1, maxLength: 200 }),
  limit: t.Optional(t.String({ description: "1-200, default 50; above 200 is clamped" })),
});

// ---- the record (spec §2.5) ------------------------------------------------------------------

const Figure = (description: string) => Nullable(SignedMicroUsd({ description: `${description}; null when status is UNAVAILABLE` }));
const Units = (description: string) => Nullable(Int({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description }));

export const Payload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("nav-record"),
    nav_id: t.String(),
    asset_id: t.String(),
    seq: Int({ minimum: 1 }),
    status: Status,
    gross_asset_value_micro_usd: Nullable(MicroUsd({ description: "floor of Σ quantity × price; null when UNAVAILABLE" })),
    liabilities_micro_usd: Nullable(MicroUsd({ description: "null when UNAVAILABLE" })),
    total_nav_micro_usd: Figure("gross − liabilities (negative when liabilities exceed assets)"),
    nav_per_unit_micro_usd: Figure("floor(total × unit_scale / supply_micro_units)"),
    supply_micro_units: Units("the supply divided by: the larger of reported and on-chain; null when UNAVAILABLE"),
    unit_scale: Int({ minimum: 1 }),
    rounding: t.Literal("floor"),
    valuation_timestamp: Time,
    calculation_timestamp: Time,
    methodology_version: t.String(),
    verifier_version: t.String(),
    expires_at: Time,
    freshness: t.Object({ age_secs: Int({ minimum: 0 }), max_age_secs: Int({ minimum: 1 }), fresh: t.Boolean() }, closed),
    reconciliation: t.Object(
      {
        supply: SupplyCheck,
        reported_supply_micro_units: Units("as the issuer reported it; null when UNAVAILABLE"),
        onchain_supply_micro_units: Units("totalSupply() in millionths of a token (floor); null when not checked or UNAVAILABLE"),
        supply_delta_bps: Units("|reported − on-chain| in basis points of on-chain, rounded up; null when not computed"),
        price_sources: PriceCheck,
        price_sources_compared: Int({ minimum: 0, description: "price quotes read and compared" }),
        tolerance_bps: Int({ minimum: 0 }),
      },
      closed,
    ),
    evidence_references: t.Array(t.Object({ source_kind: t.String(), source_ref: t.String(), retrieved_at: Time, content_sha256: Hex64 }, closed)),
    reasons: t.Array(t.String()),
    book_commitment: Hex64,
    privacy_mode: t.Literal("standard"),
    trust_model: t.String(),
  },
  closed,
);

const recordFields = {
  nav_id: t.String({ description: "nav_…" }),
  asset_id: t.String(),
  seq: Int({ minimum: 1, description: "version number of the asset's records; never overwritten" }),
  status: Status,
  published_at: Nullable(t.String({ format: "date-time", description: "null while unpublished (seen only by the owner)" })),
  created_at: Time,
  receipt: Statement,
  signature: Signature,
  signer: Address,
  payload: Payload,
  verify: t.String(),
};

export const NavRecord = t.Object(recordFields, closed);

const Charge = t.Object(
  { cost_micro_usd: MicroUsd(), receipt_id: Nullable(t.String({ description: "the usage receipt of the metered work (GET /v1/receipts/:id)" })) },
  { ...closed, description: "what the work cost" },
);

export const CalculatedRecord = t.Object(
  {
    ...recordFields,
    book_salt_hex: t.String({
      pattern: "^[0-9a-f]{64}$",
      description: "returned once: book_commitment = sha256(salt bytes ‖ canonical JSON of the book) (docs/nav.md); keep it to prove the book later",
    }),
    charge: Charge,
  },
  closed,
);

export const RefreshedRecord = t.Object({ ...recordFields, charge: Charge }, closed);

export const History = t.Object(
  {
    records: t.Array(NavRecord),
    asset_id: t.String(),
    note: t.String(),
  },
  closed,
);

export const Evidence = t.Object(
  {
    asset_id: t.String(),
    nav_id: t.String(),
    seq: Int({ minimum: 1 }),
    book_commitment: Hex64,
    references: t.Array(
      t.Object({ source_kind: t.String(), source_ref: t.String(), label: Nullable(t.String()), retrieved_at: Time, content_sha256: Hex64 }, closed),
      { description: "where each figure came from and the sha256 of the bytes retrieved; never a price, quantity or value" },
    ),
    note: t.String(),
  },
  closed,
);
