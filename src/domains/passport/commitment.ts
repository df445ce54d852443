/**
 * A passport's commitment: SHA-256 over the canonical JSON of the decoded credential payload,
 * as lowercase hex. The credential string is base64url of exactly those bytes, so anyone
 * recomputes the commitment from the credential alone, with their own canonical-JSON code
 * (docs/passport.md "Recomputing the commitment").
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../../core/canonical-json.ts";

/** Spec §2.4's wording, and what a verifier needs to reproduce the bytes. */
export const COMMITMENT_ALG =
  "sha256 over the UTF-8 bytes of the canonical JSON of the decoded credential payload, as lowercase hex. Canonical JSON: object keys sorted ascending by Unicode code point, " +
  "arrays in order, integers only, minimal string escaping (only \", \\ and control characters, as JSON.stringify does), no whitespace; " +
  "the credential string is base64url (no padding) of those same bytes, so sha256(base64url-decode(credential)) equals the commitment";

export const commitmentOf = (payload: Record<string, unknown>): string => createHash("sha256").update(canonicalJson(payload), "utf8").digest("hex");
