/**
 * Retrieving a source: one answer, fingerprinted (sha256 of the exact bytes, the time, the source
 * kind and ref) and kept sealed, or UNAVAILABLE with a reason that is safe to show. Never a guess:
 * a source that is down, slow, answers non-2xx, oversized or unreadable, or lacks the figure its
 * pointer names, is unavailable — no cached or default figure stands in for it.
 *
 * HTTP sources go through the outbound guard (webhooks' ssrf.ts: resolved address pinned, no
 * redirects); the credential is sent as a bearer token and never appears in a reason, a log or a
 * reference. ERC-20 supply is an eth_call of totalSupply() and decimals() on the configured chain.
 */
import { readCapped } from "../../core/capped-body.ts";
import { ChainRpcError } from "../../core/chain.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { chainNamed, clientFor } from "../billing/index.ts";
import { fetchPinned, resolveTarget, TargetRefused } from "../webhooks/index.ts";
import { atPointer, decimalText, unitsAsDecimal } from "./figures.ts";
import { openCredential, openDocument, type StoredSource } from "./sources.ts";
import { bodyAad, insertRetrieval } from "./store.ts";

export interface EvidenceRef {
  evidence_id: string;
  source_kind: string;
  source_ref: string;
  label: string | null;
  retrieved_at: string;
  content_sha256: string;
}

export type Retrieval =
  | {
      ok: true;
      reference: EvidenceRef;
      /** The figure the source's pointer names, as canonical decimal text; null when the source has no pointer. */
      figure: string | null;
      /** The parsed JSON answer (null when the bytes are not JSON and no pointer was asked for). */
      json: unknown;
    }
  | { ok: false; source_kind: string; source_ref: string; label: string | null; reason: string };

class Unavailable extends Error {}

async function httpBytes(ctx: Context, accountId: string, source: StoredSource): Promise<{ bytes: Uint8Array; contentType: string }> {
  let target;
  try {
    target = await resolveTarget(source.url!, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) throw new Unavailable(`the source's address is refused by the outbound guard: ${err.message}`);
    throw err;
  }
  const credential = openCredential(ctx, accountId, source);
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "svc-evidence" };
  if (credential) headers.authorization = `Bearer ${credential}`;
  let res: Response;
  const signal = AbortSignal.timeout(ctx.config.evidence.timeout_ms);
  try {
    res = await fetchPinned(target, { method: "GET", headers, signal });
  } catch {
    throw new Unavailable(signal.aborted ? `no answer within ${ctx.config.evidence.timeout_ms} ms` : "the source could not be reached");
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => {});
    throw new Unavailable(`the source answered HTTP ${res.status}`);
  }
  try {
    const max = ctx.config.evidence.max_body_bytes;
    const bytes = await readCapped(res, max);
    if (!bytes) throw new Unavailable(`the answer is larger than ${max} bytes`);
    return { bytes, contentType: res.headers.get("content-type")?.split(";")[0]?.trim() || "application/octet-stream" };
  } catch (err) {
    if (err instanceof Unavailable) throw err;
    throw new Unavailable(signal.aborted ? `no answer within ${ctx.config.evidence.timeout_ms} ms` : "the answer was cut off");
  }
}

async function erc20Bytes(ctx: Context, source: StoredSource): Promise<{ bytes: Uint8Array; contentType: string; figure: string }> {
  const chain = ctx.config.chains.find((c) => c.name === source.chain);
  if (!chain) throw new Unavailable(`chain "${source.chain}" is no longer configured`);
  const client = clientFor(chainNamed(ctx.config, chain.name));
  try {
    if ((await client.chainId()) !== chain.chain_id) throw new Unavailable(`the node configured for chain "${chain.name}" is on another chain`);
    const [read, block] = await Promise.all([client.erc20Supply(source.token!), client.blockNumber()]);
    if (!read) throw new Unavailable("the contract did not answer totalSupply() and decimals() as an ERC-20 does");
    const { totalSupply: supply, decimals } = read;
    const figure = unitsAsDecimal(supply, decimals);
    // The bytes fingerprinted are what was read, with where and when: another reader can redo the calls at that block.
    const doc = { chain: chain.name, chain_id: chain.chain_id, token: source.token, block: block.toString(), total_supply_units: supply.toString(), decimals, total_supply: figure };
    return { bytes: Buffer.from(JSON.stringify(doc)), contentType: "application/json", figure };
  } catch (err) {
    if (err instanceof ChainRpcError) throw new Unavailable(`chain "${chain.name}": ${err.message}`);
    throw err;
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** Retrieves `source` once for `accountId`: a fingerprinted, kept answer, or why it is unavailable. */
export async function retrieve(ctx: Context, accountId: string, source: StoredSource): Promise<Retrieval> {
  const unavailable = (reason: string): Retrieval => ({ ok: false, source_kind: source.kind, source_ref: source.source_ref, label: source.label, reason });
  let bytes: Uint8Array;
  let contentType: string;
  let figure: string | null = null;
  let json: unknown = null;
  try {
    if (source.kind === "erc20_supply") {
      ({ bytes, contentType, figure } = await erc20Bytes(ctx, source));
      json = parseJson(bytes);
    } else {
      const inline = openDocument(ctx, accountId, source);
      ({ bytes, contentType } = inline ? { bytes: inline, contentType: "application/octet-stream" } : await httpBytes(ctx, accountId, source));
      json = parseJson(bytes) ?? null;
      if (source.pointer !== null) {
        if (json === null) throw new Unavailable("the answer is not JSON, so its pointer cannot be read");
        const value = atPointer(json, source.pointer);
        if (value === undefined) throw new Unavailable(`the answer has nothing at ${source.pointer || "the root"}`);
        figure = decimalText(value);
        if (figure === null) throw new Unavailable(`the value at ${source.pointer || "the root"} is not a non-negative decimal number`);
      }
    }
  } catch (err) {
    if (err instanceof Unavailable) return unavailable(err.message);
    throw err;
  }
  const id = newId("evd");
  const now = ctx.clock.now();
  const contentSha256 = sha256Hex(bytes);
  insertRetrieval(ctx, {
    id,
    account_id: accountId,
    source_kind: source.kind,
    source_ref: source.source_ref,
    label: source.label,
    retrieved_at: now,
    content_sha256: contentSha256,
    content_type: contentType,
    size_bytes: bytes.byteLength,
    body_sealed: ctx.sealer.seal(bytes, bodyAad(id)),
  });
  return {
    ok: true,
    reference: { evidence_id: id, source_kind: source.kind, source_ref: source.source_ref, label: source.label, retrieved_at: new Date(now).toISOString(), content_sha256: contentSha256 },
    figure,
    json,
  };
}
