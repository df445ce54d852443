/**
 * The provenance check (POST /v1/images/verify, alias /v1/videos/verify): three answers, each
 * decided on its own evidence.
 *
 * With asset_b64 only, the asset's embedded C2PA manifest is read and validated by the C2PA
 * library: manifest_found (a manifest store is embedded), signature_valid (the claim's COSE
 * signature verifies against the certificate it carries), hash_matches (the asset's bytes hash
 * to what the claim binds). trusted says whether the chain ends at this gateway's anchors.
 *
 * With manifest (a svc receipt, as signed) and signature, the receipt is checked instead — the
 * route for an asset whose embedded manifest was stripped on the way, when the receipt was
 * kept: manifest_found (it decodes as a receipt), signature_valid (EIP-191 recovers one of this
 * gateway's receipt signers, past or present), hash_matches (the asset's sha256 is one of the
 * receipt's attestations.provenance.asset_sha256). A receipt names fingerprints, never content.
 */
import type { Context } from "../../context.ts";
import { ApiError, invalidField, rateLimited } from "../../core/errors.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import { checkReceipt } from "../receipts/index.ts";
import { readManifest } from "./provenance/c2pa.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { sniffFormat } from "./provenance/formats.ts";
import { checkManifest } from "./provenance/manifest.ts";
import { provenanceCredential } from "./signing.ts";

export interface VerifyInput {
  asset_b64?: string;
  manifest?: string;
  signature?: string;
}

export function verifyLimiter(ctx: Context): RateLimiter {
  const perMinute = ctx.config.media.verify_per_ip_per_minute;
  return new RateLimiter(ctx.clock, { perMinute, burst: perMinute });
}

function decodeAsset(ctx: Context, b64: string): Uint8Array {
  const max = ctx.config.media.verify_max_bytes;
  // base64 is 4 characters per 3 bytes: refuse before decoding what could not fit.
  if (Math.floor((b64.length * 3) / 4) > max + 3) throw new ApiError(413, "asset_too_large", `asset_b64 decodes to more than ${max} bytes (media.verify_max_bytes)`, { param: "asset_b64", limit: max });
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw invalidField("asset_b64", "is not base64");
  return new Uint8Array(Buffer.from(b64, "base64"));
}

const empty = (assetSha: string | null) => ({
  manifest_found: false,
  signature_valid: false,
  hash_matches: false,
  source: null,
  trusted: false,
  signer: null,
  receipt_id: null,
  model: null,
  created_at: null,
  asset_sha256: assetSha,
  failures: [] as string[],
});

/** `client`: the caller's address as the public guard resolved it (trust_proxy applied). */
export async function verifyProvenance(ctx: Context, limiter: RateLimiter, input: VerifyInput, client: string) {
  const take = limiter.take(client);
  if (!take.ok) throw rateLimited(take.retryAfterSecs, "too many provenance checks from this address; slow down");
  if (input.asset_b64 === undefined && input.manifest === undefined) throw invalidField("asset_b64", "give asset_b64 (the asset), or manifest and signature (a receipt), or both");
  if (input.manifest !== undefined && input.signature === undefined) throw invalidField("signature", "is required with manifest (the receipt's X-Svc-Receipt-Signature)");
  const asset = input.asset_b64 === undefined ? null : decodeAsset(ctx, input.asset_b64);
  const assetSha = asset ? sha256Hex(asset) : null;
  if (input.manifest !== undefined) return receiptCheck(ctx, input.manifest, input.signature!, assetSha);

  const format = sniffFormat(asset!);
  if (!format) return empty(assetSha);
  const credential = await provenanceCredential(ctx);
  const found = await readManifest(asset!, format, credential.anchorsPem);
  if (!found) return empty(assetSha);
  const c = checkManifest(found);
  return {
    manifest_found: true,
    signature_valid: c.signature_valid,
    hash_matches: c.hash_matches,
    source: "c2pa" as const,
    trusted: c.trusted,
    signer: c.signer ? { subject: c.signer.common_name, issuer: c.signer.issuer, alg: c.signer.alg, address: null } : null,
    receipt_id: c.receipt_id,
    model: c.model,
    created_at: c.created_at,
    asset_sha256: assetSha,
    failures: c.failures,
  };
}

function receiptCheck(ctx: Context, manifest: string, signature: string, assetSha: string | null) {
  const checked = checkReceipt(ctx, manifest, signature);
  if (!checked.payload) return { ...empty(assetSha), failures: [checked.valid ? "" : checked.reason].filter(Boolean) };
  const payload = checked.payload;
  const provenance = (payload.attestations as Record<string, Record<string, unknown>> | undefined)?.provenance;
  const bound = Array.isArray(provenance?.asset_sha256) ? (provenance.asset_sha256 as string[]) : [];
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    manifest_found: payload.type === "receipt",
    signature_valid: checked.valid,
    hash_matches: assetSha !== null && bound.includes(assetSha),
    source: "receipt" as const,
    trusted: checked.valid,
    signer: checked.recovered_address ? { subject: null, issuer: null, alg: "EIP-191 secp256k1", address: checked.recovered_address } : null,
    receipt_id: str(payload.id),
    model: str(payload.resource),
    created_at: str(payload.settled_at),
    asset_sha256: assetSha,
    failures: checked.valid ? [] : [checked.reason],
  };
}
