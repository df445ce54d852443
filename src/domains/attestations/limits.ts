/**
 * The attestations area's sizes and versions in one place (docs/attestations.md "Limits").
 * The history takes ?limit= default 50 and is not clamped (spec §8): above the supported
 * ceiling of 200 it is refused, never silently cut.
 */
import type { LimitRule } from "../../core/envelopes.ts";

export const HISTORY_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

export const MAX_SOURCES = 8;
export const MAX_SUBJECT_REF_CHARS = 200;
export const ASSET_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$";
/** A literal segment of /v1/attestations (spec §9.3: literal names are reserved). */
export const RESERVED_ASSET_IDS = ["check"];

export const MAX_TOLERANCE_BPS = 10_000;
export const MIN_MAX_AGE_SECS = 60;
export const MAX_MAX_AGE_SECS = 366 * 86_400;
export const DEFAULT_MAX_AGE_SECS = 86_400;

/** Figures are compared in millionths of a unit, floored (evidence's scaledUnits). */
export const UNIT_SCALE = 6;
/** delta_bps is clamped here so it stays a safe JSON integer whatever two figures are compared. */
export const MAX_DELTA_BPS = 1_000_000_000;

/** The comparison rules of rules.ts; a record keeps the version it was judged under and is never re-judged. */
export const METHODOLOGY_VERSION = "asset-attestation/1";

/** How often the pass that sends attestation.stale runs. */
export const STALE_SCAN_EVERY_MS = 60_000;
/** Versions handled per stale pass; the next pass takes the rest. */
export const STALE_SCAN_BATCH = 500;
