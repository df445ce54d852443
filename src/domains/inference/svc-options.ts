/**
 * The svc_ body fields of the four inference routes (spec §4.3), checked and turned into what
 * the pipeline acts on. translate/svc-fields.ts has already taken every svc_* key off the body
 * (so none reaches an upstream); here the values are validated, and a misspelt svc_ field is
 * refused by name rather than silently ignored.
 *
 *   svc_privacy_tier  standard | zero_retention | confidential: only providers declaring the
 *                     tier are eligible; overrides the key's own tier (default standard)
 *   svc_region        only providers serving from this region are eligible
 *   svc_scrub         true: secret and PII shapes are redacted from the outbound prompt (scrub.ts)
 *   svc_run_id        the run the receipt is chained into (1-128 characters, no control characters)
 *   svc_context       the context documents the call relies on (1-64): each a string, or an
 *                     object whose `content` (or `text`) is the document; each is fingerprinted
 *                     (sha256 of its UTF-8 bytes) and the receipt carries the fingerprints and
 *                     their Merkle root — never the content. The documents themselves are not
 *                     sent anywhere: the caller puts what the model should read in the prompt.
 *   svc_source_set    the id of one of the account's source sets (sources area): the receipt
 *                     carries the set's id and fingerprint (attestations.source_set); resolved
 *                     in pipeline.ts prepare, where the account is known.
 */
import { createHash } from "node:crypto";
import { PRIVACY_TIERS, type PrivacyTier } from "./config.ts";
import { invalidField } from "../../core/errors.ts";
import { MerkleTree } from "../../core/merkle.ts";
import type { SvcFields } from "./translate/svc-fields.ts";
import { SVC_FIELDS } from "./translate/svc-fields.ts";

export const MAX_RUN_ID_CHARS = 128;
export const MAX_CONTEXT_DOCUMENTS = 64;
/** A receipt lists at most this many fingerprints; beyond it, the count and the Merkle root stand for them. */
export const RECEIPT_FINGERPRINTS = 16;

export interface ContextAttestation {
  count: number;
  /** Hex sha256 of each document's UTF-8 bytes, in the order declared. */
  fingerprints: string[];
  /** RFC 6962 Merkle root (core/merkle.ts) over the 32-byte digests, in the order declared. */
  merkleRoot: string;
}

export interface SvcOptions {
  /** null: the key's tier (or standard). */
  privacyTier: PrivacyTier | null;
  region: string | null;
  scrub: boolean;
  runId: string | null;
  context: ContextAttestation | null;
  /** The source set cited (svc_source_set); absent when none. */
  sourceSet?: string;
}

const REGION = /^[a-z0-9][a-z0-9-]{0,31}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

export function parseSvcOptions(svc: SvcFields, unknownSvc: string[]): SvcOptions {
  if (unknownSvc.length > 0) {
    const names = unknownSvc.join(", ");
    throw invalidField(unknownSvc[0]!, `unknown svc_ field${unknownSvc.length > 1 ? "s" : ""} ${names}; the svc_ fields are ${SVC_FIELDS.join(", ")}`);
  }
  return {
    privacyTier: tierOf(svc.svc_privacy_tier),
    region: regionOf(svc.svc_region),
    scrub: scrubOf(svc.svc_scrub),
    runId: runIdOf(svc.svc_run_id),
    context: svc.svc_context === undefined || svc.svc_context === null ? null : contextOf(svc.svc_context),
    ...sourceSetOf(svc.svc_source_set),
  };
}

export const MAX_SOURCE_SET_ID_CHARS = 100;

function sourceSetOf(v: unknown): { sourceSet?: string } {
  if (v === undefined || v === null) return {};
  if (typeof v !== "string" || v.length === 0 || v.length > MAX_SOURCE_SET_ID_CHARS) {
    throw invalidField("svc_source_set", `must be a source set id (sset_…; GET /v1/sources/sets), 1-${MAX_SOURCE_SET_ID_CHARS} characters`);
  }
  return { sourceSet: v };
}

function tierOf(v: unknown): PrivacyTier | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || !(PRIVACY_TIERS as readonly string[]).includes(v)) throw invalidField("svc_privacy_tier", `must be one of ${PRIVACY_TIERS.join(", ")}`);
  return v as PrivacyTier;
}

function regionOf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || !REGION.test(v)) throw invalidField("svc_region", "must be a region name: 1-32 of a-z, 0-9 and -, as the deployment's providers declare them");
  return v;
}

function scrubOf(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw invalidField("svc_scrub", "must be a boolean");
  return v;
}

function runIdOf(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length === 0 || v.length > MAX_RUN_ID_CHARS || CONTROL.test(v)) {
    throw invalidField("svc_run_id", `must be a string of 1-${MAX_RUN_ID_CHARS} characters without control characters`);
  }
  return v;
}

function contextOf(v: unknown): ContextAttestation {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_CONTEXT_DOCUMENTS) {
    throw invalidField("svc_context", `must be an array of 1-${MAX_CONTEXT_DOCUMENTS} documents`);
  }
  const digests = v.map((doc, i) => createHash("sha256").update(documentText(doc, i), "utf8").digest());
  return {
    count: digests.length,
    fingerprints: digests.map((d) => d.toString("hex")),
    merkleRoot: MerkleTree.of(digests).root.toString("hex"),
  };
}

function documentText(doc: unknown, i: number): string {
  if (typeof doc === "string") return doc;
  if (doc && typeof doc === "object" && !Array.isArray(doc)) {
    const o = doc as Record<string, unknown>;
    const content = o.content ?? o.text;
    if (typeof content === "string") return content;
  }
  throw invalidField(`svc_context[${i}]`, "must be a string, or an object with a string `content` (or `text`)");
}

/** The receipt's `context` attestation group: fingerprints (the first RECEIPT_FINGERPRINTS), their count and Merkle root. */
export function contextReceiptGroup(c: ContextAttestation): Record<string, string | number | string[]> {
  return {
    alg: "sha256; merkle: RFC 6962 over the 32-byte digests in declared order",
    count: c.count,
    merkle_root: c.merkleRoot,
    fingerprints: c.fingerprints.slice(0, RECEIPT_FINGERPRINTS),
  };
}
