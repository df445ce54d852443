/**
 * What svc states in an asset's C2PA manifest, and reading it back.
 *
 * The claim carries, besides the hash binding the library computes over the asset
 * (c2pa.hash.data for images, c2pa.hash.bmff for MP4):
 *   c2pa.actions.v2     one c2pa.created action, digitalSourceType trainedAlgorithmicMedia (IPTC),
 *                       softwareAgent = the model, when = the generation time
 *   com.svc.generation  {generator, model, created_at, receipt_id, receipt_signer, prompt?}: the
 *                       signed receipt that billed the asset binds the same asset's sha256, so a
 *                       reader can go from either to the other. The prompt is there only when
 *                       the caller opted in (svc_provenance_prompt).
 */
import { VERSION } from "../../../version.ts";
import type { ManifestDefinition, ReadManifest } from "./c2pa.ts";
import { EXTENSION, type AssetFormat } from "./formats.ts";

export const TRAINED_ALGORITHMIC_MEDIA = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
export const SVC_ASSERTION = "com.svc.generation";

export interface GenerationFacts {
  format: AssetFormat;
  model: string;
  createdAt: string;
  receiptId: string;
  receiptSigner: string;
  /** Only when the caller opted in. */
  prompt?: string;
}

export function generationManifest(f: GenerationFacts): ManifestDefinition {
  return {
    claim_generator_info: [{ name: "svc", version: VERSION }],
    title: `${f.receiptId}.${EXTENSION[f.format]}`,
    format: f.format,
    assertions: [
      { label: "c2pa.actions.v2", data: { actions: [{ action: "c2pa.created", digitalSourceType: TRAINED_ALGORITHMIC_MEDIA, softwareAgent: { name: f.model }, when: f.createdAt }] } },
      {
        label: SVC_ASSERTION,
        data: { generator: "svc", model: f.model, created_at: f.createdAt, receipt_id: f.receiptId, receipt_signer: f.receiptSigner, ...(f.prompt !== undefined ? { prompt: f.prompt } : {}) },
      },
    ],
  };
}

/** The three independent answers of a check, from what the reader reported. */
export interface ManifestCheck {
  signature_valid: boolean;
  hash_matches: boolean;
  trusted: boolean;
  failures: string[];
  signer: { issuer: string | null; common_name: string | null; alg: string | null } | null;
  receipt_id: string | null;
  model: string | null;
  created_at: string | null;
}

const has = (entries: { code: string }[], pattern: RegExp) => entries.some((e) => pattern.test(e.code));

export function checkManifest(found: ReadManifest): ManifestCheck {
  const { success, failure, active } = found;
  const ours = (active.assertions as { label: string; data: Record<string, unknown> }[] | undefined)?.find((a) => a.label === SVC_ASSERTION)?.data ?? {};
  const info = (active.signature_info ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    // The claim's signature verified against the certificate it carries (trust is separate).
    signature_valid: has(success, /^claimSignature\.validated$/) && !has(failure, /^claimSignature\./),
    // The hard binding: the asset's bytes hash to what the signed claim states.
    hash_matches: has(success, /^assertion\.(dataHash|bmffHash|boxesHash|collectionHash)\.match$/) && !has(failure, /^assertion\.(dataHash|bmffHash|boxesHash|collectionHash)\./),
    trusted: has(success, /^signingCredential\.trusted$/),
    failures: failure.map((f) => f.code),
    signer: info.issuer || info.common_name ? { issuer: str(info.issuer), common_name: str(info.common_name), alg: str(info.alg) } : null,
    receipt_id: str(ours.receipt_id),
    model: str(ours.model),
    created_at: str(ours.created_at),
  };
}
