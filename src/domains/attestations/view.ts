/**
 * The shapes served: the owner's record (every field, the claim's declared figure included), the
 * public view (only records anyone could check again: no declaration, no sealed source), and the
 * signed payload both carry. Status is computed at read time: a VERIFIED version past its window
 * reads STALE, with status_at_check keeping what the check found.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { sourceView } from "../evidence/index.ts";
import type { AttestationPayload, AttestationRecord, PublicVerification } from "./models.ts";
import { drawsOnSealedData } from "./definition.ts";
import { statusAt } from "./rules.ts";
import type { VersionRecord } from "./store.ts";

export type RecordView = Static<typeof AttestationRecord>;
export type PublicView = Static<typeof PublicVerification>;
export type Payload = Static<typeof AttestationPayload>;

export const DISCLAIMER =
  "An attestation states what the cited sources answered at checked_at and how their figures compared under the stated methodology. It is not an audit, a legal opinion or a guarantee of the asset; a source's own accuracy is not verified.";

const base = (ctx: Context) => ctx.config.public_url.replace(/\/+$/, "");

export const publicUrl = (ctx: Context, assetId: string) => `${base(ctx)}/v1/assets/${encodeURIComponent(assetId)}/verification`;

const verifyText = (ctx: Context) =>
  `Check the record: POST ${base(ctx)}/v1/receipts/verify with {"receipt": receipt, "signature": signature} (it accepts any statement svc signs), or recover the EIP-191 signer of the receipt string with any Ethereum library and compare it with GET ${base(ctx)}/v1/receipts/pubkey; then base64url-decode receipt to read payload, and confirm each evidence reference's content_sha256 against the bytes (docs/attestations.md).`;

/** The payload to sign for a version about to be stored. */
export function payloadOf(v: Omit<VersionRecord, "signed" | "createdAt">, supersedes: string | null, issuedAt: number): Payload {
  return {
    v: 1,
    type: "asset-attestation",
    attestation_id: v.id,
    asset_id: v.assetId,
    subject_ref: v.subjectRef,
    seq: v.seq,
    supersedes,
    status: v.statusAtCheck,
    claim: { kind: v.claim.kind, tolerance_bps: v.claim.tolerance_bps, max_age_secs: v.claim.max_age_secs, issuer_declared: v.claim.declared_figure !== null },
    reconciliation: v.reconciliation,
    evidence_references: v.evidence.references,
    unavailable: v.evidence.unavailable,
    reasons: v.evidence.reasons,
    draws_on_sealed_data: drawsOnSealedData(v.sources),
    public: v.public,
    checked_at: isoTime(v.checkedAt),
    expires_at: isoTime(v.expiresAt),
    issued_at: isoTime(issuedAt),
    methodology_version: v.methodologyVersion,
    verifier_version: v.verifierVersion,
    charge_receipt_id: v.charge.id,
  };
}

const payloadFrom = (statement: string): Payload => JSON.parse(Buffer.from(statement, "base64url").toString("utf8")) as Payload;

function shared(ctx: Context, v: VersionRecord) {
  const now = ctx.clock.now();
  const ageSecs = Math.max(0, Math.floor((now - v.checkedAt) / 1000));
  const status = statusAt(v.statusAtCheck, v.expiresAt, now);
  return {
    attestation_id: v.id,
    asset_id: v.assetId,
    seq: v.seq,
    subject_ref: v.subjectRef,
    status,
    status_at_check: v.statusAtCheck,
    sources: v.sources.map(sourceView),
    reconciliation: v.reconciliation,
    evidence_references: v.evidence.references,
    unavailable: v.evidence.unavailable,
    reasons: v.evidence.reasons,
    checked_at: isoTime(v.checkedAt),
    expires_at: isoTime(v.expiresAt),
    freshness: { age_secs: ageSecs, max_age_secs: v.claim.max_age_secs, fresh: now < v.expiresAt },
    methodology_version: v.methodologyVersion,
    verifier_version: v.verifierVersion,
    receipt: v.signed.statement,
    signature: v.signed.signature,
    signer: v.signed.signer,
    payload: payloadFrom(v.signed.statement),
    verify: verifyText(ctx),
  };
}

/** The owner's view of one version; `latest` says whether a newer version superseded it. */
export function recordView(ctx: Context, v: VersionRecord, latest: boolean): RecordView {
  const view = shared(ctx, v);
  return {
    ...view,
    claim: { ...v.claim },
    public: v.public,
    public_url: v.public && latest ? publicUrl(ctx, v.assetId) : null,
    supersedes: view.payload.supersedes,
    latest,
    charge: { receipt_id: v.charge.id, receipt: v.charge.receipt, signature: v.charge.signature, signer: v.charge.signer, cost_micro_usd: v.charge.costMicroUsd },
  };
}

export function publicView(ctx: Context, v: VersionRecord): PublicView {
  return {
    ...shared(ctx, v),
    claim: { kind: v.claim.kind, tolerance_bps: v.claim.tolerance_bps, max_age_secs: v.claim.max_age_secs },
    disclaimer: DISCLAIMER,
  };
}
