/**
 * TypeBox models of the /v1/support routes: closed request bodies (an unknown field is refused
 * and named) and the exact shapes served. docs/support.md explains every field.
 */
import { t } from "elysia";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Hex = (bytes: number, description: string) => t.String({ pattern: `^[0-9a-fA-F]{${bytes * 2}}$`, error: `must be ${bytes * 2} hex characters (${bytes} bytes)`, description });
const EvmAddress = t.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x-prefixed 20-byte hex address" });

export const Nonce = t.Object(
  {
    nonce: t.String({ description: "single-use; send it back with the claim" }),
    message: t.String({ description: "the exact text both wallets sign (UTF-8 bytes for ed25519, EIP-191 personal_sign for the EVM wallet)" }),
    issued_at: Time,
    expires_at: Time,
  },
  closed,
);

export const ClaimBody = t.Object(
  {
    nonce: t.String({ pattern: "^[0-9a-f]{32}$", error: "must be a nonce from POST /v1/support/nonce (32 lowercase hex characters)" }),
    ed25519_public_key: Hex(32, "the ed25519 wallet's public key, hex"),
    ed25519_signature: Hex(64, "the ed25519 signature of the message's UTF-8 bytes, hex"),
    evm_address: EvmAddress,
    evm_signature: t.String({ pattern: "^0x[0-9a-fA-F]{130}$", error: "must be a 0x-prefixed 65-byte hex signature", description: "evm_address's EIP-191 (personal_sign) signature of the message" }),
    chain: t.String({ minLength: 1, maxLength: 100, description: "a configured chain's name (GET /v1/billing/methods)" }),
    tx_hash: t.String({ pattern: "^0x[0-9a-fA-F]{64}$", error: "must be a 0x-prefixed 32-byte hex transaction hash", description: "a finalized transaction moving the chain's USDT out of evm_address" }),
  },
  closed,
);

export const AddressParams = t.Object({ address: EvmAddress });

export const Claim = t.Object(
  {
    id: t.String({ description: "supc_…" }),
    status: t.Literal("registered", { description: "registration only: nothing is paid or granted by a claim" }),
    date: Time,
    address: t.String({ description: "the EVM address, masked: 0x12ab…cd34" }),
  },
  closed,
);
