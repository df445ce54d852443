/**
 * Claim inputs: what an escrow contract on an EVM chain needs to check a svc receipt, derived
 * from the receipt string and its signature alone (docs/payments.md "Claim inputs").
 *
 * svc signs receipts with EIP-191 personal_sign over the receipt string (src/core/statements.ts),
 * so a contract checks `ecrecover(digest, v, r, s) == svc's signer` where digest is
 * keccak256("\x19Ethereum Signed Message:\n" ‖ len ‖ message) and message is the receipt
 * string's bytes. `fields` are the payload values a contract would release funds on, decoded
 * from that same message: a contract that must not trust svc's decoding re-derives them from
 * `message` itself. request_key is the bytes32 a contract records to pay a request once.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { hashMessage } from "../../core/eip191.ts";

export interface ClaimFields {
  receipt_version: number | null;
  account: string;
  key_id: string | null;
  kind: string | null;
  status: string | null;
  resource: string | null;
  run_id: string | null;
  usage_event_id: string | null;
  cost_micro_usd: number | null;
  settled_at: string | null;
  settled_at_unix: number | null;
}

export interface ClaimInputs {
  request_id: string;
  request_key: string;
  message: string;
  digest: string;
  signature: string;
  signer: string;
  v: number;
  r: string;
  s: string;
  fields: ClaimFields;
}

const hex0x = (bytes: Uint8Array): string => `0x${bytesToHex(bytes)}`;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) ? v : null);

/** `payload` is the decoded receipt, whose signature already recovered to `signer`. */
export function claimInputs(receipt: string, signature: string, signer: string, payload: Record<string, unknown> & { id: string; account: string }): ClaimInputs {
  const sig = signature.replace(/^0x/, "").toLowerCase();
  const v = parseInt(sig.slice(128, 130), 16);
  const settledAt = str(payload.settled_at);
  const settledMs = settledAt === null ? Number.NaN : Date.parse(settledAt);
  return {
    request_id: payload.id,
    request_key: hex0x(keccak_256(new TextEncoder().encode(payload.id))),
    message: hex0x(new TextEncoder().encode(receipt)),
    digest: hex0x(hashMessage(receipt)),
    signature: `0x${sig}`,
    signer,
    // Some signers write the recovery id as 0/1; ecrecover wants 27/28.
    v: v < 27 ? v + 27 : v,
    r: `0x${sig.slice(0, 64)}`,
    s: `0x${sig.slice(64, 128)}`,
    fields: {
      receipt_version: int(payload.v),
      account: payload.account,
      key_id: str(payload.key_id),
      kind: str(payload.kind),
      status: str(payload.status),
      resource: str(payload.resource),
      run_id: str(payload.run_id),
      usage_event_id: str(payload.usage_event_id),
      cost_micro_usd: int(payload.cost_micro_usd),
      settled_at: settledAt,
      settled_at_unix: Number.isFinite(settledMs) ? Math.floor(settledMs / 1000) : null,
    },
  };
}
