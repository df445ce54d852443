/**
 * The C2PA reference implementation (c2pa-rs, as its WebAssembly build @contentauth/c2pa-wasm)
 * inside svc: it builds, embeds and signs manifests, and reads and validates them. The module
 * (9 MB) is embedded in the compiled binary by a `type: "file"` import and instantiated on first
 * use, so a gateway that never touches media pays nothing at start.
 *
 * Two shims, both because the build targets browsers: the builder reads its source asset
 * through a Blob with FileReaderSync (a Web Worker API that Bun does not have), so the asset
 * is handed over as a Blob that keeps its bytes and a FileReaderSync that reads only such
 * Blobs; and its signer callback must return the whole COSE structure (cose.ts).
 */
import { initSync, WasmBuilder, WasmReader } from "@contentauth/c2pa-wasm";
import wasmPath from "@contentauth/c2pa-wasm/assets/c2pa_bg.wasm" with { type: "file" };
import { readFileSync } from "node:fs";
import { type ClaimSigner, reserveFor, signClaim } from "./cose.ts";
import type { AssetFormat } from "./formats.ts";

/** A Blob whose bytes stay readable synchronously (slices included). */
class BytesBlob extends Blob {
  constructor(
    readonly held: Uint8Array,
    type = "",
  ) {
    super([held as Uint8Array<ArrayBuffer>], { type });
  }
  override slice(start?: number, end?: number, type?: string): BytesBlob {
    return new BytesBlob(this.held.subarray(start ?? 0, end ?? this.held.length), type);
  }
}

class BytesBlobReader {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    if (!(blob instanceof BytesBlob)) throw new TypeError("svc's FileReaderSync reads only the Blobs svc hands to the C2PA library");
    return blob.held.slice().buffer;
  }
}

let ready = false;
function load(): void {
  if (ready) return;
  const g = globalThis as { FileReaderSync?: unknown };
  g.FileReaderSync ??= BytesBlobReader;
  initSync({ module: readFileSync(wasmPath) });
  ready = true;
}

/** The manifest definition svc writes (c2pa-rs ManifestDefinition, JSON). */
export interface ManifestDefinition {
  claim_generator_info: { name: string; version: string }[];
  title: string;
  format: AssetFormat;
  assertions: { label: string; data: unknown }[];
}

/** The asset with its manifest embedded and signed. */
export async function embedManifest(asset: Uint8Array, format: AssetFormat, definition: ManifestDefinition, signer: ClaimSigner): Promise<Uint8Array> {
  load();
  const builder = WasmBuilder.fromJson(JSON.stringify(definition));
  try {
    const reserveSize = reserveFor(signer.chain);
    const signed = await builder.sign(
      { alg: signer.alg, reserveSize, sign: (claim: Uint8Array) => signClaim(signer, claim, reserveSize) as Promise<Uint8Array<ArrayBuffer>> },
      [],
      format,
      new BytesBlob(asset, format),
    );
    return new Uint8Array(signed);
  } finally {
    builder.free();
  }
}

export interface ValidationEntry {
  code: string;
  url?: string;
  explanation?: string;
}

/** What the reader found in an asset: null when it carries no C2PA manifest. */
export interface ReadManifest {
  /** The active manifest as c2pa-rs reports it (assertions, signature_info, …). */
  active: Record<string, any>;
  success: ValidationEntry[];
  failure: ValidationEntry[];
}

/**
 * Reads and validates the asset's manifest store. `trustAnchors` (PEM) are the roots whose
 * chains count as trusted (svc's own); others validate but are reported untrusted.
 */
export async function readManifest(asset: Uint8Array, format: AssetFormat, trustAnchors: string): Promise<ReadManifest | null> {
  load();
  let reader: WasmReader;
  try {
    reader = await WasmReader.fromBytes(format, asset, JSON.stringify({ trust: { user_anchors: trustAnchors } }));
  } catch (err) {
    if (/JumbfNotFound|NotFound|UnsupportedType|JumbfBoxNotFound|ProvenanceMissing/.test(String(err))) return null;
    throw err;
  }
  try {
    const store = JSON.parse(reader.json()) as { validation_results?: { activeManifest?: { success?: ValidationEntry[]; failure?: ValidationEntry[] } } };
    const active = reader.activeManifest() as Record<string, any> | undefined;
    if (!active) return null;
    const results = store.validation_results?.activeManifest ?? {};
    return { active: toPlain(active), success: results.success ?? [], failure: results.failure ?? [] };
  } finally {
    reader.free();
  }
}

/** wasm-bindgen hands Maps for JSON objects; the rest of svc reads plain objects. */
function toPlain(v: any): any {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toPlain(x)]));
  if (Array.isArray(v)) return v.map(toPlain);
  return v;
}
