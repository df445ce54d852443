/** The rows of attestation_versions, attestation_public_ids and attestation_stale_notices: the only file that names them in SQL. */
import type { Context } from "../../context.ts";
import type { EvidenceRef, StoredSource } from "../evidence/index.ts";
import type { CheckStatus, ClaimKind } from "./rules.ts";

export interface StoredClaim {
  kind: ClaimKind;
  tolerance_bps: number;
  max_age_secs: number;
  declared_figure: string | null;
}

export interface StoredReconciliation {
  reported_from: "sources" | "issuer_declaration";
  reported_micro_units: string;
  onchain_supply_micro_units: string;
  delta_bps: number | null;
  tolerance_bps: number;
  within_tolerance: boolean;
  unit_scale: number;
  rounding: "floor";
}

export interface UnavailableSource {
  source_kind: string;
  source_ref: string;
  label: string | null;
  reason: string;
}

export interface StoredEvidence {
  references: EvidenceRef[];
  unavailable: UnavailableSource[];
  reasons: string[];
}

export interface SignedRecord {
  statement: string;
  signature: string;
  signer: string;
}

export interface ChargeReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
  costMicroUsd: number;
}

export interface VersionRecord {
  id: string;
  accountId: string;
  assetId: string;
  seq: number;
  keyId: string | null;
  subjectRef: string;
  public: boolean;
  claim: StoredClaim;
  sources: StoredSource[];
  statusAtCheck: CheckStatus;
  reconciliation: StoredReconciliation | null;
  evidence: StoredEvidence;
  checkedAt: number;
  expiresAt: number;
  methodologyVersion: string;
  verifierVersion: string;
  signed: SignedRecord;
  charge: ChargeReceipt;
  createdAt: number;
}

interface Row {
  id: string;
  account_id: string;
  asset_id: string;
  seq: number;
  key_id: string | null;
  subject_ref: string;
  public: number;
  claim: string;
  sources: string;
  status_at_check: CheckStatus;
  reconciliation: string | null;
  evidence: string;
  checked_at: number;
  expires_at: number;
  methodology_version: string;
  verifier_version: string;
  statement: string;
  signature: string;
  signer: string;
  cost_micro_usd: number;
  charge_receipt_id: string;
  charge_receipt: string;
  charge_signature: string;
  charge_signer: string;
  created_at: number;
}

const recordOf = (r: Row): VersionRecord => ({
  id: r.id,
  accountId: r.account_id,
  assetId: r.asset_id,
  seq: r.seq,
  keyId: r.key_id,
  subjectRef: r.subject_ref,
  public: r.public === 1,
  claim: JSON.parse(r.claim) as StoredClaim,
  sources: JSON.parse(r.sources) as StoredSource[],
  statusAtCheck: r.status_at_check,
  reconciliation: r.reconciliation === null ? null : (JSON.parse(r.reconciliation) as StoredReconciliation),
  evidence: JSON.parse(r.evidence) as StoredEvidence,
  checkedAt: r.checked_at,
  expiresAt: r.expires_at,
  methodologyVersion: r.methodology_version,
  verifierVersion: r.verifier_version,
  signed: { statement: r.statement, signature: r.signature, signer: r.signer },
  charge: { id: r.charge_receipt_id, receipt: r.charge_receipt, signature: r.charge_signature, signer: r.charge_signer, costMicroUsd: r.cost_micro_usd },
  createdAt: r.created_at,
});

/** The next seq of an asset (1 for a new one); call inside the transaction that inserts it. */
export const nextSeq = (ctx: Context, accountId: string, assetId: string): number =>
  (ctx.db.query<{ top: number | null }, [string, string]>("SELECT MAX(seq) AS top FROM attestation_versions WHERE account_id = ? AND asset_id = ?").get(accountId, assetId)?.top ?? 0) + 1;

export function insertVersion(ctx: Context, v: VersionRecord): void {
  ctx.db
    .query(
      `INSERT INTO attestation_versions (id, account_id, asset_id, seq, key_id, subject_ref, public, claim, sources, status_at_check, reconciliation, evidence,
         checked_at, expires_at, methodology_version, verifier_version, statement, signature, signer, cost_micro_usd, charge_receipt_id, charge_receipt, charge_signature, charge_signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      v.id,
      v.accountId,
      v.assetId,
      v.seq,
      v.keyId,
      v.subjectRef,
      v.public ? 1 : 0,
      JSON.stringify(v.claim),
      JSON.stringify(v.sources),
      v.statusAtCheck,
      v.reconciliation === null ? null : JSON.stringify(v.reconciliation),
      JSON.stringify(v.evidence),
      v.checkedAt,
      v.expiresAt,
      v.methodologyVersion,
      v.verifierVersion,
      v.signed.statement,
      v.signed.signature,
      v.signed.signer,
      v.charge.costMicroUsd,
      v.charge.id,
      v.charge.receipt,
      v.charge.signature,
      v.charge.signer,
      v.createdAt,
    );
}

export function latestVersion(ctx: Context, accountId: string, assetId: string): VersionRecord | null {
  const row = ctx.db.query<Row, [string, string]>("SELECT * FROM attestation_versions WHERE account_id = ? AND asset_id = ? ORDER BY seq DESC LIMIT 1").get(accountId, assetId);
  return row ? recordOf(row) : null;
}

export function versionAt(ctx: Context, accountId: string, assetId: string, seq: number): VersionRecord | null {
  const row = ctx.db.query<Row, [string, string, number]>("SELECT * FROM attestation_versions WHERE account_id = ? AND asset_id = ? AND seq = ?").get(accountId, assetId, seq);
  return row ? recordOf(row) : null;
}

/** An asset's versions, newest first. */
export const versionsOf = (ctx: Context, accountId: string, assetId: string, limit: number): VersionRecord[] =>
  ctx.db
    .query<Row, [string, string, number]>("SELECT * FROM attestation_versions WHERE account_id = ? AND asset_id = ? ORDER BY seq DESC LIMIT ?")
    .all(accountId, assetId, limit)
    .map(recordOf);

/** The account holding a public asset_id, or null when no account has published it. */
export const publicHolder = (ctx: Context, assetId: string): string | null =>
  ctx.db.query<{ account_id: string }, [string]>("SELECT account_id FROM attestation_public_ids WHERE asset_id = ?").get(assetId)?.account_id ?? null;

/** Claims a public asset_id for the account (kept for good); returns the account that holds it afterwards. */
export function claimPublicId(ctx: Context, assetId: string, accountId: string): string {
  ctx.db.query("INSERT OR IGNORE INTO attestation_public_ids (asset_id, account_id, claimed_at) VALUES (?, ?, ?)").run(assetId, accountId, ctx.clock.now());
  return publicHolder(ctx, assetId)!;
}

/** Latest versions that were VERIFIED, whose window has run out, and whose attestation.stale was not sent yet. */
export const staleWithoutNotice = (ctx: Context, now: number, limit: number): VersionRecord[] =>
  ctx.db
    .query<Row, [number, number]>(
      `SELECT v.* FROM attestation_versions v
        WHERE v.status_at_check = 'VERIFIED' AND v.expires_at <= ?
          AND NOT EXISTS (SELECT 1 FROM attestation_stale_notices n WHERE n.attestation_id = v.id)
          AND NOT EXISTS (SELECT 1 FROM attestation_versions later WHERE later.account_id = v.account_id AND later.asset_id = v.asset_id AND later.seq > v.seq)
        ORDER BY v.expires_at LIMIT ?`,
    )
    .all(now, limit)
    .map(recordOf);

/** Records that attestation.stale went out for a version; false when it already had. */
export const noteStale = (ctx: Context, attestationId: string, accountId: string): boolean =>
  ctx.db.query("INSERT OR IGNORE INTO attestation_stale_notices (attestation_id, account_id, emitted_at) VALUES (?, ?, ?)").run(attestationId, accountId, ctx.clock.now()).changes > 0;
