/**
 * The attestations rules (docs/attestations.md): a check or a refresh is metered at one price
 * whatever its outcome, retrieves every source, is judged (rules.ts), signed and stored as the
 * asset's next version. Versions are never updated or deleted; reads compute STALE. Another
 * account's asset_id answers 404 exactly like an unknown one.
 */
import { conflict, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { evidenceBody } from "../evidence/index.ts";
import { type Definition, definitionOf, drawsOnSealedData } from "./definition.ts";
import { evaluate, type Outcome } from "./evaluate.ts";
import { emitChange } from "./events.ts";
import { METHODOLOGY_VERSION } from "./limits.ts";
import { statusAt } from "./rules.ts";
import { claimPublicId, insertVersion, latestVersion, nextSeq, publicHolder, type VersionRecord, versionAt, versionsOf } from "./store.ts";
import { DISCLAIMER, payloadOf, publicView, type PublicView, recordView, type RecordView } from "./view.ts";

export interface Caller {
  accountId: string;
  keyId: string;
}

const HISTORY_NOTE =
  "Versions newest first; each was signed when it was checked and is never overwritten. status is as read now (a VERIFIED version past its window reads STALE); status_at_check is what its check found.";

function owned(ctx: Context, accountId: string, assetId: string): VersionRecord {
  const v = latestVersion(ctx, accountId, assetId);
  if (!v) throw notFound("attestation");
  return v;
}

/** Meter, retrieve and judge, then sign and store the next version in one transaction with its event. */
async function runCheck(ctx: Context, caller: Caller, def: Definition): Promise<RecordView> {
  const id = newId("att");
  const { result: outcome, settlement } = await meterWork(
    ctx.meter,
    ctx.log,
    { accountId: caller.accountId, keyId: caller.keyId, price: ctx.config.attestations.check_price_micro_usd, kind: "attestation", resource: id },
    async () => {
      const outcome: Outcome = await evaluate(ctx, caller.accountId, def);
      return {
        result: outcome,
        status: outcome.status,
        units: {
          sources: def.sources.length,
          sources_unavailable: outcome.unavailable.length,
          attestations: { attestation: { asset_id: def.assetId, attestation_id: id, status: outcome.status, methodology_version: METHODOLOGY_VERSION } },
        },
      };
    },
  );
  // Receipts are minted in every settle (the receipts area); a settle without one is a broken deployment.
  if (!settlement.receipt) throw new Error("the attestation check's settle minted no receipt");
  const receipt = settlement.receipt;
  const stored = ctx.tx.run(() => {
    const now = ctx.clock.now();
    const previous = latestVersion(ctx, caller.accountId, def.assetId);
    const unsigned: Omit<VersionRecord, "signed" | "createdAt"> = {
      id,
      accountId: caller.accountId,
      assetId: def.assetId,
      seq: nextSeq(ctx, caller.accountId, def.assetId),
      keyId: caller.keyId,
      subjectRef: def.subjectRef,
      public: def.public,
      claim: def.claim,
      sources: def.sources,
      statusAtCheck: outcome.status,
      reconciliation: outcome.reconciliation,
      evidence: { references: outcome.references, unavailable: outcome.unavailable, reasons: outcome.reasons },
      checkedAt: now,
      expiresAt: now + def.claim.max_age_secs * 1000,
      methodologyVersion: METHODOLOGY_VERSION,
      verifierVersion: ctx.version,
      charge: { id: receipt.id, receipt: receipt.receipt, signature: receipt.signature, signer: receipt.signer, costMicroUsd: settlement.cost },
    };
    const version: VersionRecord = { ...unsigned, signed: signStatement(ctx.signer, payloadOf(unsigned, previous?.id ?? null, now)), createdAt: now };
    insertVersion(ctx, version);
    emitChange(ctx, previous ? { version: previous, status: statusAt(previous.statusAtCheck, previous.expiresAt, now) } : null, version);
    return version;
  });
  return recordView(ctx, stored, true);
}

/** POST /v1/attestations/check: the asset's next version (its first, or one under a new definition). */
export async function checkAsset(ctx: Context, caller: Caller, def: Definition): Promise<RecordView> {
  // The public asset_id is claimed before the charge, so a refusal costs nothing.
  if (def.public && claimPublicId(ctx, def.assetId, caller.accountId) !== caller.accountId) {
    throw conflict("asset_id_taken", `asset_id "${def.assetId}" is already published by another account; public asset ids are unique (docs/attestations.md)`);
  }
  return runCheck(ctx, caller, def);
}

/** POST /v1/attestations/:asset_id/refresh: the same sources retrieved again, as the next version. */
export async function refreshAsset(ctx: Context, caller: Caller, assetId: string): Promise<RecordView> {
  return runCheck(ctx, caller, definitionOf(owned(ctx, caller.accountId, assetId)));
}

export function getAttestation(ctx: Context, accountId: string, assetId: string): RecordView {
  return recordView(ctx, owned(ctx, accountId, assetId), true);
}

export function attestationHistory(ctx: Context, accountId: string, assetId: string, limit: number) {
  const versions = versionsOf(ctx, accountId, assetId, limit);
  if (!versions.length) throw notFound("attestation");
  return {
    versions: versions.map((v, i) => recordView(ctx, v, i === 0)),
    asset_id: assetId,
    subject_ref: versions[0]!.subjectRef,
    note: HISTORY_NOTE,
    disclaimer: DISCLAIMER,
  };
}

/** References of one version (the latest by default); with includeBody, the kept bytes too (null once dropped). */
export function attestationEvidence(ctx: Context, accountId: string, assetId: string, opts: { seq?: number; includeBody: boolean }) {
  const v = opts.seq === undefined ? owned(ctx, accountId, assetId) : versionAt(ctx, accountId, assetId, opts.seq);
  if (!v) throw notFound("attestation version");
  const evidence = v.evidence.references.map((ref) => {
    if (!opts.includeBody) return { ...ref };
    const body = evidenceBody(ctx, accountId, ref.evidence_id);
    return { ...ref, body: body ? { content_type: body.content_type, content_sha256: body.content_sha256, body_b64: body.bytes.toString("base64") } : null };
  });
  return { attestation_id: v.id, asset_id: v.assetId, seq: v.seq, evidence, unavailable: v.evidence.unavailable };
}

/**
 * GET /v1/assets/:asset_id/verification, unauthenticated: the latest version of the account
 * holding the public asset_id, while that version is public. Unknown, never published, no longer
 * public, or drawing on a declaration or sealed data: the same 404.
 */
export function publicVerification(ctx: Context, assetId: string): PublicView {
  const holder = publicHolder(ctx, assetId);
  const v = holder === null ? null : latestVersion(ctx, holder, assetId);
  if (!v || !v.public || v.claim.declared_figure !== null || drawsOnSealedData(v.sources)) throw notFound("verification");
  return publicView(ctx, v);
}
