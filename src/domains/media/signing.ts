/**
 * Provenance for generated assets: each one leaves svc with a C2PA manifest embedded and
 * signed (provenance/), citing the receipt that bills it — whose id is chosen here, before
 * the settle (core/meter.ts SettleDetails.receiptId), so the manifest can name it and the
 * receipt can bind the signed asset's sha256.
 *
 * The credential is read once per context and kept (ctx.provenance); it is created on first
 * need when svc setup has not made it yet.
 */
import type { Context } from "../../context.ts";
import { newOrderedId } from "../../core/ids.ts";
import { embedManifest } from "./provenance/c2pa.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { ensureCredential, loadCredential, type ProvenanceCredential } from "./provenance/credentials.ts";
import type { AssetFormat } from "./provenance/formats.ts";
import { generationManifest } from "./provenance/manifest.ts";

declare module "../../context.ts" {
  interface Context {
    /** The C2PA signing credential, loaded on first use (media area). */
    provenance?: Promise<ProvenanceCredential>;
  }
}

export function provenanceCredential(ctx: Context): Promise<ProvenanceCredential> {
  ctx.provenance ??= (async () => {
    await ensureCredential(ctx.paths.provenance, ctx.sealer);
    return loadCredential(ctx.paths.provenance, ctx.sealer);
  })();
  // A failed load is not cached: the next asset tries again (an operator may fix the files).
  ctx.provenance.catch(() => (ctx.provenance = undefined));
  return ctx.provenance;
}

/** Forgets the loaded credential (after `svc media cert import`, a running server reloads on next use). */
export function forgetProvenanceCredential(ctx: Context): void {
  ctx.provenance = undefined;
}

export const newReceiptId = (): string => newOrderedId("rcpt");

export interface SignedAsset {
  bytes: Uint8Array;
  sha256: string;
}

/** Embeds and signs the manifest: the asset as it leaves svc, and its fingerprint. */
export async function signGenerated(ctx: Context, asset: Uint8Array, facts: { format: AssetFormat; model: string; receiptId: string; prompt?: string }): Promise<SignedAsset> {
  const credential = await provenanceCredential(ctx);
  const createdAt = new Date(ctx.clock.now()).toISOString();
  const bytes = await embedManifest(asset, facts.format, generationManifest({ ...facts, createdAt, receiptSigner: ctx.signer.address }), credential.signer);
  return { bytes, sha256: sha256Hex(bytes) };
}
