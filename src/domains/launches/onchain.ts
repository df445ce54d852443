/**
 * Reading a launch's ERC-20 as it stands at the chain's head: totalSupply(), decimals() and,
 * when the contract has one, paused(). A contract without paused() reverts (or answers nothing):
 * that is "no pause switch", never "paused". Every read has the area's own short timeout and no
 * retry, so a silent node makes the public on-chain view answer reachable:false quickly rather
 * than hold the request for the deposit client's ~30 s.
 */
import { ChainClient, ChainRpcError, ERC20_DECIMALS } from "../../core/chain.ts";
import type { Context } from "../../context.ts";
import type { ChainConfig } from "../billing/index.ts";

const PAUSED = "0x5c975abb";

/** The chain is not answering as it must (down, slow, or another chain): nothing can be judged. */
export class ChainUnreadable extends Error {}

export interface TokenState {
  chain_id: number;
  block: bigint;
  total_supply: bigint;
  decimals: number;
  /** null: the contract has no paused() (it cannot be paused). */
  paused: boolean | null;
}

export const launchClient = (ctx: Context, chain: ChainConfig): ChainClient => new ChainClient(chain.rpc_url, { timeoutMs: ctx.config.launches.rpc_timeout_ms, retries: 0 });

/** The configured chain a launch was bound on: the same name and chain id, or null when the operator removed it. */
export const boundChain = (ctx: Context, name: string | null, chainId: number | null): ChainConfig | null =>
  ctx.config.chains.find((c) => c.name === name && c.chain_id === chainId) ?? null;

const word = (hex: string): boolean => hex.length === 66;

async function pausedOf(client: ChainClient, token: string): Promise<boolean | null> {
  try {
    const hex = await client.ethCall(token, PAUSED);
    return word(hex) ? BigInt(hex) !== 0n : null;
  } catch (err) {
    // A revert is the node's answer that the function does not exist: no pause switch.
    if (err instanceof ChainRpcError && err.kind === "rpc_error") return null;
    throw err;
  }
}

/**
 * The token's state; throws ChainUnreadable when the node cannot be read, and NotAnErc20 when it
 * answers but the address does not behave as an ERC-20.
 */
export async function readToken(ctx: Context, chain: ChainConfig, token: string): Promise<TokenState> {
  const client = launchClient(ctx, chain);
  try {
    const chainId = await client.chainId();
    if (chainId !== chain.chain_id) throw new ChainUnreadable(`the node configured for chain "${chain.name}" is on chain id ${chainId}, not ${chain.chain_id}`);
    const block = await client.blockNumber();
    const read = await client.erc20Supply(token);
    if (!read) throw new NotAnErc20("the address did not answer totalSupply() and decimals() as an ERC-20 does (is it a contract on this chain?)");
    return { chain_id: chainId, block, total_supply: read.totalSupply, decimals: read.decimals, paused: await pausedOf(client, token) };
  } catch (err) {
    if (err instanceof ChainRpcError) throw new ChainUnreadable(`chain "${chain.name}": ${err.message}`);
    throw err;
  }
}

export class NotAnErc20 extends Error {}

/** decimals() of a payment token, or null when it has none (it reverts or answers nothing). */
export async function decimalsOf(ctx: Context, chain: ChainConfig, token: string): Promise<number | null> {
  const client = launchClient(ctx, chain);
  try {
    const chainId = await client.chainId();
    if (chainId !== chain.chain_id) throw new ChainUnreadable(`the node configured for chain "${chain.name}" is on chain id ${chainId}, not ${chain.chain_id}`);
    const hex = await client.ethCall(token, ERC20_DECIMALS);
    if (!word(hex) || BigInt(hex) > 36n) return null;
    return Number(BigInt(hex));
  } catch (err) {
    if (err instanceof ChainRpcError && err.kind === "rpc_error") return null;
    if (err instanceof ChainRpcError) throw new ChainUnreadable(`chain "${chain.name}": ${err.message}`);
    throw err;
  }
}
