/**
 * The verifier interface every attestation format implements, and the one way they fetch a
 * backend's document. A verifier either returns what it verified or throws AttestationFailure
 * whose message is shown to anyone (GET /v1/attestation is public): it names what failed, never
 * the endpoint's URL (operators put tokens in query strings), a response body or a stack.
 */
import { readCapped } from "../../core/capped-body.ts";
import type { ConfidentialBackend } from "./config.ts";

export class AttestationFailure extends Error {}

export interface VerifiedEvidence {
  /** The measurement the document states, lowercase hex, one of the backend's expected_measurements. */
  measurement: string;
  /** When the backend's TEE issued the document (ms). */
  issuedAt: number;
  /** The exact bytes fetched, so a client can verify them itself against the nonce. */
  document: Uint8Array;
}

export interface AttestationRequest {
  /** 32 random bytes as hex, fresh for this verification; the document must be bound to it (no replay). */
  nonce: string;
  now: number;
  timeoutMs: number;
}

export interface Verifier {
  attest(backend: ConfidentialBackend, request: AttestationRequest): Promise<VerifiedEvidence>;
}

/** Issued-at may differ from svc's clock by this much: a document from further away is stale or mis-clocked. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** Attestation documents are small (a quote, a token, a certificate chain); beyond this is a mistake or an attack. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/** POSTs `body` as JSON to the backend's attestation endpoint and returns the answer's bytes; every failure is a sanitised AttestationFailure. */
export async function fetchDocument(backend: ConfidentialBackend, body: Record<string, unknown>, timeoutMs: number): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(backend.attestation_url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "user-agent": "svc-attestation" },
      body: JSON.stringify(body),
      redirect: "error",
      signal,
    });
  } catch {
    throw new AttestationFailure(signal.aborted ? `no answer within ${timeoutMs} ms` : "the attestation endpoint could not be reached");
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => {});
    throw new AttestationFailure(`the attestation endpoint answered HTTP ${res.status}`);
  }
  let bytes: Uint8Array | null;
  try {
    bytes = await readCapped(res, MAX_DOCUMENT_BYTES);
  } catch {
    throw new AttestationFailure(signal.aborted ? `no answer within ${timeoutMs} ms` : "the attestation document was cut off");
  }
  if (!bytes) throw new AttestationFailure(`the attestation document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return bytes;
}
