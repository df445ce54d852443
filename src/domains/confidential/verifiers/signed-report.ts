/**
 * signed_report, svc's stand-in attestation format (docs/confidential.md "The signed_report
 * format"): the backend answers POST {nonce} with {report, signature}, where report is
 * base64url of JSON {format: "svc-signed-report/1", measurement, nonce, issued_at} and signature
 * is base64url of its Ed25519 signature by the key the operator configured. Verified: the
 * signature, the format, the nonce svc sent, the measurement against the allowlist, the
 * issue time against the clock. It has the shape of a real quote check (signed evidence, a
 * freshness challenge, an allowlist of measurements) without the hardware vendor's chain.
 */
import { createPublicKey, verify } from "node:crypto";
import type { ConfidentialBackend } from "../config.ts";
import { AttestationFailure, type AttestationRequest, fetchDocument, MAX_CLOCK_SKEW_MS, type VerifiedEvidence, type Verifier } from "../verifier.ts";

export const SIGNED_REPORT_FORMAT = "svc-signed-report/1";

const B64URL = /^[A-Za-z0-9_-]+$/;

function objectOf(bytes: Uint8Array, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    throw new AttestationFailure(`${what} is not JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new AttestationFailure(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

function signatureHolds(publicKeyHex: string, report: Buffer, signature: Buffer): boolean {
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKeyHex, "hex").toString("base64url") }, format: "jwk" });
  try {
    return verify(null, report, key, signature);
  } catch {
    return false;
  }
}

export const signedReport: Verifier = {
  async attest(backend: ConfidentialBackend, request: AttestationRequest): Promise<VerifiedEvidence> {
    const document = await fetchDocument(backend, { nonce: request.nonce }, request.timeoutMs);
    const envelope = objectOf(document, "the attestation document");
    if (typeof envelope.report !== "string" || !B64URL.test(envelope.report) || typeof envelope.signature !== "string" || !B64URL.test(envelope.signature)) {
      throw new AttestationFailure("the attestation document is not a signed report ({report, signature} in base64url)");
    }
    const report = Buffer.from(envelope.report, "base64url");
    if (!signatureHolds(backend.public_key!, report, Buffer.from(envelope.signature, "base64url"))) {
      throw new AttestationFailure("the report's signature does not verify against the configured public key");
    }
    const claims = objectOf(report, "the signed report");
    if (claims.format !== SIGNED_REPORT_FORMAT) throw new AttestationFailure(`the signed report's format is not ${SIGNED_REPORT_FORMAT}`);
    if (claims.nonce !== request.nonce) throw new AttestationFailure("the signed report does not carry the nonce svc sent (a replayed or cached report)");
    const measurement = typeof claims.measurement === "string" ? claims.measurement.toLowerCase() : "";
    if (!backend.expected_measurements.some((m) => m.toLowerCase() === measurement)) throw new AttestationFailure("the reported measurement is not one of the expected measurements");
    const issuedAt = typeof claims.issued_at === "string" ? Date.parse(claims.issued_at) : Number.NaN;
    if (!Number.isFinite(issuedAt)) throw new AttestationFailure("the signed report has no valid issued_at");
    if (Math.abs(issuedAt - request.now) > MAX_CLOCK_SKEW_MS) throw new AttestationFailure(`the signed report was issued more than ${MAX_CLOCK_SKEW_MS / 60_000} minutes away from svc's clock`);
    return { measurement, issuedAt, document };
  },
};
