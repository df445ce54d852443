/**
 * The vault's sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the services enforce what a schema cannot (docs/vault.md "Limits").
 */
import type { LimitRule } from "../../core/envelopes.ts";

/** Spec §8: GET /v1/vault/transfers returns at most 100, newest first. */
export const TRANSFERS_CAP = 100;
/** Spec §8: GET /v1/vault/distributions returns at most 200, newest first. */
export const DISTRIBUTIONS_CAP = 200;

/** GET /v1/vault/chain/:id pages newest first with ?before_seq=. */
export const CHAIN_LIMIT: LimitRule = { min: 1, max: 500, default: 100 };

export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 2000;
export const MAX_MEMO_CHARS = 500;
export const MAX_EMAIL_CHARS = 254;
export const MAX_STATEMENT_CHARS = 8000;

/** A document's decoded bytes at most: documents are evidence (a deed, an audit letter), not bulk data. */
export const MAX_DOCUMENT_BYTES = 1_048_576;
/** base64 of MAX_DOCUMENT_BYTES, padding included. */
export const MAX_DOCUMENT_B64_CHARS = Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4;

/** The roles an attester may hold (GET …/attesters states them as `roles`). */
export const ATTESTER_ROLES = ["auditor", "custodian", "legal", "valuer", "trustee", "administrator"] as const;

/** What a view grant may open (docs/vault.md "View grants"). */
export const VIEW_SCOPES = ["positions", "activity", "attestations", "documents"] as const;

const DAY_SECS = 86_400;
export const GRANT_TTL = { min: 60, max: 366 * DAY_SECS, default: 30 * DAY_SECS };
export const CLAIM_TTL = { min: 60, max: 30 * DAY_SECS, default: 7 * DAY_SECS };

/** Chain entries gathered under one Merkle root at most; a longer backlog becomes several roots in one pass. */
export const ANCHOR_BATCH_MAX = 10_000;
