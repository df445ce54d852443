/**
 * What a chain says about a transaction, checked as ARCHITECTURE.md §8 "Deposits" requires:
 * the node is on the configured chain (chain id), the receipt exists and its status is 1, and
 * the ERC-20 Transfer logs it holds; confirmations = head − block + 1. Deposits and x402
 * payments both come through here, so a transfer is judged the same way however it arrives.
 *
 * Refusals are ApiErrors with stable types (docs/deposits.md lists them). RPC URLs may carry
 * API keys, so no message here ever names one: errors name the chain.
 */
import type { Config } from "../../config.ts";
import { ChainClient, ChainRpcError, erc20Transfers, type Erc20Transfer } from "../../core/chain.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, invalidField, notImplemented } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

export type ChainConfig = Config["chains"][number];

export const TX_HASH_PATTERN = "^0x[0-9a-fA-F]{64}$";
const TX_HASH = new RegExp(TX_HASH_PATTERN);

/** Per RPC attempt; with two retries a dead node costs a caller at most ~30 s. */
const RPC_TIMEOUT_MS = 10_000;

/** Deposits and payments need somewhere to send money and at least one chain to send it on. */
export const depositsEnabled = (config: Config): boolean => config.billing.treasury !== "" && config.chains.length > 0;

export function requireDepositsEnabled(config: Config): void {
  if (!depositsEnabled(config)) throw notImplemented("USDT deposits (the operator has not configured a treasury and a chain)");
}

/** The configured chain called `name`, or 400 naming `field`. */
export function chainNamed(config: Config, name: string, field = "chain"): ChainConfig {
  const chain = config.chains.find((c) => c.name === name);
  if (!chain) {
    const known = config.chains.map((c) => c.name);
    throw invalidField(field, `unknown chain "${name}"; this deployment accepts ${known.length ? known.map((n) => `"${n}"`).join(", ") : "none"} (GET /v1/billing/methods)`);
  }
  return chain;
}

export function normalizeTxHash(value: string, field = "tx_hash"): string {
  if (!TX_HASH.test(value)) throw invalidField(field, "must be a 0x-prefixed 32-byte hex transaction hash");
  return value.toLowerCase();
}

/** What the chain holds for one transaction, at the moment it was asked. */
export interface Inspection {
  chain: ChainConfig;
  txHash: string;
  blockNumber: number;
  blockHash: string;
  /** head − block + 1 (0 if the node's head is somehow behind the receipt). */
  confirmations: number;
  /** Every ERC-20 Transfer in the receipt, whatever its token and recipient. */
  transfers: Erc20Transfer[];
}

const chainUnavailable = (chain: ChainConfig, err: ChainRpcError): ApiError =>
  new ApiError(503, "chain_unavailable", `chain "${chain.name}" cannot be checked right now: ${err.message}; try again later`, { chain: chain.name }, { "retry-after": "30" });

const refused = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) => new ApiError(status, type, message, extra);

export function clientFor(chain: ChainConfig): ChainClient {
  return new ChainClient(chain.rpc_url, { timeoutMs: RPC_TIMEOUT_MS });
}

/** Asks the chain's node about a transaction: chain id first, then the receipt, then the head. */
export async function inspectTransaction(chain: ChainConfig, txHash: string, client: ChainClient = clientFor(chain)): Promise<Inspection> {
  try {
    const nodeChainId = await client.chainId();
    if (nodeChainId !== chain.chain_id) {
      // The operator pointed the chain at the wrong node (or the wrong chain id): never judge a
      // transfer by another chain's history.
      throw refused(502, "wrong_chain", `the node configured for chain "${chain.name}" is on chain id ${nodeChainId}, not ${chain.chain_id}; nothing can be verified until the operator fixes the chain's configuration`, {
        chain: chain.name,
        expected_chain_id: chain.chain_id,
        node_chain_id: nodeChainId,
      });
    }
    const receipt = await client.transactionReceipt(txHash);
    if (!receipt) {
      if (await client.transactionExists(txHash)) {
        throw refused(409, "transaction_not_mined", `transaction ${txHash} is not mined yet on chain "${chain.name}"; post it again once it is`, { chain: chain.name });
      }
      throw refused(404, "transaction_not_found", `no transaction ${txHash} on chain "${chain.name}"`, { chain: chain.name });
    }
    if (receipt.status !== 1) {
      throw refused(400, "transaction_failed", `transaction ${txHash} failed on chain "${chain.name}" (receipt status 0): it transferred nothing`, { chain: chain.name });
    }
    const head = await client.blockNumber();
    const confirmations = head >= receipt.blockNumber ? Number(head - receipt.blockNumber + 1n) : 0;
    return { chain, txHash, blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash, confirmations, transfers: erc20Transfers(receipt) };
  } catch (err) {
    if (err instanceof ChainRpcError) throw chainUnavailable(chain, err);
    throw err;
  }
}

/**
 * The transfers that pay the treasury in the chain's USDT. When there are none, the refusal
 * says what the transaction did instead: another token to the treasury, USDT to someone else,
 * or no USDT transfer at all.
 */
export function treasuryTransfers(inspection: Inspection, treasury: string): Erc20Transfer[] {
  const token = inspection.chain.usdt.toLowerCase();
  const to = treasury.toLowerCase();
  const paying = inspection.transfers.filter((t) => t.token === token && t.to === to);
  if (paying.length) return paying;
  const { chain, txHash } = inspection;
  const otherToken = inspection.transfers.find((t) => t.to === to);
  if (otherToken) {
    return fail(400, "wrong_token", `transaction ${txHash} sends token ${toChecksumAddress(otherToken.token)} to the treasury, not chain "${chain.name}"'s USDT (${toChecksumAddress(chain.usdt)})`, {
      token: toChecksumAddress(otherToken.token),
      expected_token: toChecksumAddress(chain.usdt),
    });
  }
  const elsewhere = inspection.transfers.find((t) => t.token === token);
  if (elsewhere) {
    return fail(400, "wrong_recipient", `transaction ${txHash} sends USDT to ${toChecksumAddress(elsewhere.to)}, not to the treasury ${toChecksumAddress(treasury)}`, {
      to: toChecksumAddress(elsewhere.to),
      treasury: toChecksumAddress(treasury),
    });
  }
  return fail(400, "no_usdt_transfer", `transaction ${txHash} holds no transfer of chain "${chain.name}"'s USDT (${toChecksumAddress(chain.usdt)}) to the treasury`);
}

function fail(status: number, type: string, message: string, extra: Record<string, unknown> = {}): never {
  throw refused(status, type, message, extra);
}

/**
 * An address as an operator types it (svc chains add --usdt, svc setup --treasury): 0x and 40
 * hex digits; mixed case must be a valid EIP-55 checksum (it catches typos). Returns the
 * checksummed form; throws a message naming what is wrong.
 */
export function parseEvmAddress(text: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) throw new Error(`"${text}" is not a 0x-prefixed 20-byte hex address`);
  const checksummed = toChecksumAddress(text);
  const hex = text.slice(2);
  const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixed && checksummed !== text) throw new Error(`"${text}" has a wrong EIP-55 checksum (a typo?); expected ${checksummed}`);
  return checksummed;
}
