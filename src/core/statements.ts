/**
 * Signed statements: the format of receipts, mandate proofs and every other record svc signs.
 * statement = base64url(canonical JSON of the payload); signature = EIP-191 personal_sign of
 * the statement string by the service's signer, 0x-hex r ‖ s ‖ v. Anyone verifies one with an
 * ordinary Ethereum library: recover the signer from (statement, signature), compare with the
 * published signer address, then base64url-decode the statement to read the payload.
 */
import { canonicalJson } from "./canonical-json.ts";
import { recoverMessageAddress } from "./eip191.ts";
import type { Signer } from "./signer.ts";

export interface SignedStatement {
  statement: string;
  signature: string;
  signer: string;
}

/** The statement string of a payload: base64url of its canonical JSON. */
export const statementOf = (payload: Record<string, unknown>): string => Buffer.from(canonicalJson(payload), "utf8").toString("base64url");

export function signStatement(signer: Signer, payload: Record<string, unknown>): SignedStatement {
  const statement = statementOf(payload);
  return { statement, ...signer.signWithAddress(statement) };
}

export type Verification =
  | { valid: true; recovered_address: string; payload: Record<string, unknown> }
  | { valid: false; reason: string; recovered_address: string | null; payload: Record<string, unknown> | null };

/** Checks a statement against the expected signer addresses; never throws on malformed input. */
export function verifyStatement(statement: unknown, signature: unknown, signers: string[]): Verification {
  if (typeof statement !== "string" || !/^[A-Za-z0-9_-]+$/.test(statement)) return { valid: false, reason: "statement is not base64url", recovered_address: null, payload: null };
  if (typeof signature !== "string") return { valid: false, reason: "signature is not a string", recovered_address: null, payload: null };
  let payload: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(statement, "base64url").toString("utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  if (!payload) return { valid: false, reason: "statement does not decode to a JSON object", recovered_address: null, payload: null };
  let recovered: string;
  try {
    recovered = recoverMessageAddress(statement, signature);
  } catch (err) {
    return { valid: false, reason: `signature cannot be recovered: ${err instanceof Error ? err.message : String(err)}`, recovered_address: null, payload };
  }
  if (!signers.some((s) => s.toLowerCase() === recovered.toLowerCase())) return { valid: false, reason: "signed by an address that is not this service's signer", recovered_address: recovered, payload };
  return { valid: true, recovered_address: recovered, payload };
}
