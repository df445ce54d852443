/**
 * The NAV area's sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the service enforces what a schema cannot. Spec §8: nav history takes limit 1-200, default 50;
 * the rest are svc's (docs/nav.md "Limits").
 */
import type { LimitRule } from "../../core/envelopes.ts";

export const HISTORY_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

export const MAX_HOLDINGS = 100;
export const MAX_PRICE_SOURCES = 5;
export const MAX_SUPPORTING_SOURCES = 5;
export const MAX_INSTRUMENT_CHARS = 120;
/** Quantities are decimal text: at most 24 integer and 18 fractional digits, so products stay exact in BigInt. */
export const QUANTITY_PATTERN = "^[0-9]{1,24}(\\.[0-9]{1,18})?$";
/** 1 to 10,000 basis points; 0 means the sources must agree exactly. */
export const MAX_TOLERANCE_BPS = 10_000;
export const MIN_MAX_AGE_SECS = 60;
export const MAX_MAX_AGE_SECS = 366 * 86_400;
/** nav_per_unit is the NAV of unit_scale supply micro-units: 1 (per micro-unit) to 10^12. */
export const MAX_UNIT_SCALE = 1_000_000_000_000;
export const DEFAULT_UNIT_SCALE = 1_000_000;

/**
 * Asset ids are chosen by the owner. "records" and "calculate" are literal segments of this area's
 * own paths (spec §9.3: literal segments win), so they cannot name an asset.
 */
export const ASSET_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$";
export const RESERVED_ASSET_IDS = ["records", "calculate"] as const;
