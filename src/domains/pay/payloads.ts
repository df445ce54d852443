/**
 * The two statements this area signs (src/core/statements.ts format; docs/payments.md lists
 * every field). Addresses are EIP-55 checksummed and token amounts are decimal strings, so a
 * payload reads the same in every language; times are ISO 8601 UTC, and `issued_at` dates the
 * statement for the receipt verifier's signer-window rule.
 */
import { createHash } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ASSET, PAYLOAD_VERSION } from "./limits.ts";
import type { RequestRow, SettlementRow } from "./store.ts";

export function requestPayload(row: Omit<RequestRow, "statement" | "signature" | "signer" | "settled_at" | "key_id">, memo: string | null): Record<string, unknown> {
  return {
    v: PAYLOAD_VERSION,
    type: "payment_request",
    id: row.id,
    account: row.account_id,
    chain: row.chain,
    chain_id: row.chain_id,
    asset: ASSET,
    token: toChecksumAddress(row.token),
    decimals: row.decimals,
    amount_micro_usd: row.amount_micro_usd,
    amount_units: row.amount_units,
    payee: toChecksumAddress(row.payee),
    memo,
    after_block: row.after_block,
    issued_at: isoTime(row.created_at),
    expires_at: isoTime(row.expires_at),
  };
}

/** Binds a settlement to the exact request statement it settles. */
export const statementSha256 = (statement: string): string => createHash("sha256").update(statement, "utf8").digest("hex");

export function settlementPayload(request: RequestRow, s: Omit<SettlementRow, "statement" | "signature" | "signer">): Record<string, unknown> {
  return {
    v: PAYLOAD_VERSION,
    type: "payment_settlement",
    request_id: request.id,
    request_sha256: statementSha256(request.statement),
    account: request.account_id,
    chain: request.chain,
    chain_id: s.chain_id,
    asset: ASSET,
    token: toChecksumAddress(request.token),
    payee: toChecksumAddress(request.payee),
    from: toChecksumAddress(s.from_address),
    requested_units: request.amount_units,
    amount_units: s.amount_units,
    tx_hash: s.tx_hash,
    log_index: s.log_index,
    block_number: s.block_number,
    block_hash: s.block_hash,
    confirmations: s.confirmations,
    required_confirmations: s.required_confirmations,
    issued_at: isoTime(s.settled_at),
  };
}
