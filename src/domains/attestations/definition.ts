/**
 * What an attestation checks, as a check names it: the asset, the claim and its sources, checked
 * once (the fields each source needs, exactly one on-chain supply, a figure to compare with it)
 * and stored with every version, so a refresh retrieves the very same sources again.
 *
 * Public records: a record drawing on an issuer declaration (claim.declared_figure) or on sealed
 * data (a source with a credential, whose answer is the owner's, or an inline document, sealed
 * with the record) is never public — the public view shows only what anyone could retrieve again
 * from the cited sources. Asking for both is refused when the check is made, not discovered later.
 */
import type { Static } from "@sinclair/typebox";
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { decimalText, prepareSource, type StoredSource } from "../evidence/index.ts";
import { DEFAULT_MAX_AGE_SECS, RESERVED_ASSET_IDS } from "./limits.ts";
import type { CheckBody } from "./models.ts";
import type { StoredClaim } from "./store.ts";

export interface Definition {
  assetId: string;
  subjectRef: string;
  public: boolean;
  claim: StoredClaim;
  sources: StoredSource[];
}

/** Sources whose figure is compared with the supply: custodians, and attestation documents with a pointer. */
export const reportsFigure = (s: StoredSource): boolean => s.kind === "custodian" || (s.kind === "third_party_attestation" && s.pointer !== null);

/** A source whose answer only its owner may read: fetched with a credential, or a document given inline (sealed). */
export const isSealed = (s: StoredSource): boolean => s.credential_sealed !== null || s.document_sealed !== null;

export const drawsOnSealedData = (sources: StoredSource[]): boolean => sources.some(isSealed);

export function prepareDefinition(ctx: Context, accountId: string, body: Static<typeof CheckBody>): Definition {
  if (RESERVED_ASSET_IDS.includes(body.asset_id)) throw invalidField("asset_id", `"${body.asset_id}" is reserved (a literal segment of /v1/attestations)`);
  body.sources.forEach((s, i) => {
    if (s.kind === "price") throw invalidField(`sources[${i}].kind`, "price sources are not used by attestations: name custodian, third_party_attestation or erc20_supply sources");
  });
  const sources = body.sources.map((s, i) => prepareSource(ctx, accountId, s, `sources[${i}]`));
  if (sources.filter((s) => s.kind === "erc20_supply").length !== 1) throw invalidField("sources", "name exactly one erc20_supply source: the on-chain supply the claim is compared with");
  const declared = body.claim.declared_figure === undefined ? null : decimalText(body.claim.declared_figure);
  if (body.claim.declared_figure !== undefined && declared === null) throw invalidField("claim.declared_figure", "must be a non-negative decimal number as text");
  const reporting = sources.filter(reportsFigure).length;
  if (declared !== null && reporting > 0) throw invalidField("claim.declared_figure", "give either an issuer declaration or sources that report the figure (custodian, or third_party_attestation with a pointer), not both");
  if (declared === null && reporting === 0) throw invalidField("sources", "name a source that reports the figure (custodian, or third_party_attestation with a pointer), or give claim.declared_figure");
  const isPublic = body.public ?? false;
  if (isPublic && declared !== null) throw invalidField("public", "a record drawing on an issuer declaration (claim.declared_figure) is never public");
  if (isPublic) {
    const sealed = sources.findIndex(isSealed);
    if (sealed >= 0) throw invalidField("public", `a record drawing on sealed data is never public: sources[${sealed}] has a credential or an inline document`);
  }
  return {
    assetId: body.asset_id,
    subjectRef: body.subject_ref,
    public: isPublic,
    claim: { kind: body.claim.kind, tolerance_bps: body.claim.tolerance_bps ?? 0, max_age_secs: body.claim.max_age_secs ?? DEFAULT_MAX_AGE_SECS, declared_figure: declared },
    sources,
  };
}

/** The definition a version was checked under: a refresh checks it again unchanged. */
export const definitionOf = (v: { assetId: string; subjectRef: string; public: boolean; claim: StoredClaim; sources: StoredSource[] }): Definition => ({
  assetId: v.assetId,
  subjectRef: v.subjectRef,
  public: v.public,
  claim: v.claim,
  sources: v.sources,
});
