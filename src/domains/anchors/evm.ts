/**
 * The `evm` anchor backend: one transaction per root on the configured chain
 * (anchors.evm.chain), from the anchor wallet to itself, value 0, calldata = the memo
 * `<prefix>:v1:<root>` as UTF-8 bytes. Anyone reads it back with eth_getTransactionByHash.
 *
 *   pending   requested, not broadcast yet (no wallet, node down, refused: see last_error)
 *   submitted signed and broadcast; the signed bytes are kept
 *   anchored  the transaction has the required confirmations
 *
 * Nothing is lost on the way: the anchor row is written with the root, before any network
 * call, and every step is retried by the scheduler (a one-shot job right after a request, and
 * a recurring one). The signed transaction is written to the row BEFORE it is broadcast, so a
 * crash between the two leaves a hash the node does not know, and the next pass re-broadcasts
 * those exact bytes (same nonce, same hash) instead of paying for a second transaction.
 *
 * Sends are serialised per context: nonces come from the node's pending count, and two passes
 * signing at once would reuse one.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Config } from "../../config.ts";
import { ChainClient, ChainRpcError } from "../../core/chain.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { signEip1559 } from "./evm-tx.ts";
import { type AnchorWallet, loadAnchorWallet } from "./wallet.ts";

type ChainConfig = Config["chains"][number];

export const EVM_SEND_JOB = "anchors.evm_send";
export const EVM_TICK_JOB = "anchors.evm";
/** How often open evm anchors are pushed along (sent, re-broadcast, confirmed). */
export const EVM_TICK_MS = 15_000;
/** At most this many transactions per pass; the rest go on the next one. */
const SEND_BATCH = 50;
/** eth_feeHistory window for the priority fee. */
const FEE_BLOCKS = 5;

interface EvmRow {
  id: string;
  root: string;
  status: "pending" | "submitted" | "anchored";
  memo: string;
  external_id: string | null;
  chain: string;
  chain_id: number;
  raw_tx: string | null;
}

export const anchorChain = (ctx: Context): ChainConfig | null =>
  ctx.config.anchors.evm.chain ? (ctx.config.chains.find((c) => c.name === ctx.config.anchors.evm.chain) ?? null) : null;

export function requiredConfirmations(ctx: Context, chain: ChainConfig): number {
  return chain.name === ctx.config.anchors.evm.chain ? (ctx.config.anchors.evm.confirmations ?? chain.confirmations) : chain.confirmations;
}

/**
 * Records an evm anchor for the root (once) when a chain is configured, and queues a send.
 * Call inside the transaction that records the root.
 */
export function requestEvmAnchor(ctx: Context, root: string, memo: string): boolean {
  const chain = anchorChain(ctx);
  if (!chain) return false;
  const inserted = ctx.db
    .query("INSERT OR IGNORE INTO anchors (id, root, backend, status, memo, chain, chain_id, created_at) VALUES (?, ?, 'evm', 'pending', ?, ?, ?, ?)")
    .run(newId("anc"), root, memo, chain.name, chain.chain_id, ctx.clock.now()).changes;
  if (inserted) ctx.scheduler.schedule(EVM_SEND_JOB, {}, { uniqueKey: EVM_SEND_JOB });
  return inserted > 0;
}

const passes = new WeakMap<Context, Promise<unknown>>();

/** Pushes every open evm anchor one step along; serialised per context. Never throws: failures stay on the rows (last_error) for the next pass. */
export function advanceEvmAnchors(ctx: Context): Promise<{ sent: number; anchored: number }> {
  const run = (passes.get(ctx) ?? Promise.resolve()).then(() => advance(ctx));
  passes.set(ctx, run.catch(() => {}));
  return run;
}

async function advance(ctx: Context): Promise<{ sent: number; anchored: number }> {
  const chains = ctx.db
    .query<{ chain: string }, []>("SELECT DISTINCT chain FROM anchors WHERE backend = 'evm' AND status != 'anchored'")
    .all()
    .map((r) => ctx.config.chains.find((c) => c.name === r.chain))
    .filter((c): c is ChainConfig => c !== undefined); // a chain removed from the config keeps its anchors open until it is back
  let sent = 0;
  let anchored = 0;
  for (const chain of chains) {
    const client = new ChainClient(chain.rpc_url);
    try {
      const wallet = loadAnchorWallet(ctx.config, ctx.sealer);
      sent += await sendPending(ctx, chain, client, wallet);
      anchored += await confirmSubmitted(ctx, chain, client);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      noteError(ctx, chain.name, message);
      ctx.log.warn("evm anchors could not advance; will retry", { chain: chain.name, error: message });
    }
  }
  return { sent, anchored };
}

function openRows(ctx: Context, chain: string, status: "pending" | "submitted"): EvmRow[] {
  return ctx.db
    .query<EvmRow, [string, string, number]>("SELECT * FROM anchors WHERE backend = 'evm' AND chain = ? AND status = ? ORDER BY created_at, id LIMIT ?")
    .all(chain, status, SEND_BATCH);
}

function noteError(ctx: Context, chain: string, message: string, id?: string): void {
  if (id) ctx.db.query("UPDATE anchors SET last_error = ? WHERE id = ?").run(message, id);
  else ctx.db.query("UPDATE anchors SET last_error = ? WHERE backend = 'evm' AND chain = ? AND status != 'anchored'").run(message, chain);
}

/** Forgets a signed transaction that can never be mined (refused, reverted): the row is signed afresh on the next pass. */
function backToPending(ctx: Context, id: string, reason: string): void {
  ctx.db
    .query("UPDATE anchors SET status = 'pending', external_id = NULL, raw_tx = NULL, nonce = NULL, block_number = NULL, submitted_at = NULL, last_error = ? WHERE id = ? AND status = 'submitted'")
    .run(reason, id);
}

/** The node already holding this exact transaction is success, not an error. */
const alreadyKnown = (err: unknown) => err instanceof ChainRpcError && err.kind === "rpc_error" && /already known|known transaction|already imported/i.test(err.message);
/** The node refused the transaction itself (nonce, funds, fees): sending it again will not help. */
const refused = (err: unknown) => err instanceof ChainRpcError && err.kind === "rpc_error" && !alreadyKnown(err);

async function suggestFees(client: ChainClient): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const history = await client.feeHistory(FEE_BLOCKS, [50]);
  const nextBaseFee = history.baseFeePerGas[history.baseFeePerGas.length - 1]!;
  // The median tip of recent blocks (the highest of them): what gets a transaction in soon.
  const tip = history.reward.reduce((max, r) => (r[0] !== undefined && r[0] > max ? r[0] : max), 0n);
  // Twice the base fee stays valid through several full blocks of base-fee increases (+12.5% each).
  return { maxPriorityFeePerGas: tip, maxFeePerGas: nextBaseFee * 2n + tip };
}

async function sendPending(ctx: Context, chain: ChainConfig, client: ChainClient, wallet: AnchorWallet | null): Promise<number> {
  const rows = openRows(ctx, chain.name, "pending");
  if (!rows.length) return 0;
  if (!wallet) {
    noteError(ctx, chain.name, "no anchor wallet yet: the operator runs `svc anchors evm-key` and funds its address");
    return 0;
  }
  const nodeChainId = await client.chainId();
  if (nodeChainId !== chain.chain_id) throw new Error(`the node for chain ${chain.name} is on chain id ${nodeChainId}, not ${chain.chain_id}`);
  let nonce = await client.transactionCount(wallet.address, "pending");
  const fees = await suggestFees(client);
  let sent = 0;
  for (const row of rows) {
    const data = new TextEncoder().encode(row.memo);
    const gas = await client.estimateGas({ from: wallet.address, to: wallet.address, data: `0x${bytesToHex(data)}` });
    const tx = signEip1559({ chainId: chain.chain_id, nonce, ...fees, gas, to: wallet.address, value: 0n, data }, wallet.secretKey);
    // Written before the broadcast (see the file comment): a crash after this line re-broadcasts, never re-signs.
    ctx.db
      .query("UPDATE anchors SET status = 'submitted', external_id = ?, raw_tx = ?, nonce = ?, chain_id = ?, submitted_at = ?, attempts = attempts + 1, last_error = NULL WHERE id = ? AND status = 'pending'")
      .run(tx.hash, tx.raw, Number(nonce), chain.chain_id, ctx.clock.now(), row.id);
    try {
      await client.sendRawTransaction(tx.raw);
    } catch (err) {
      if (!alreadyKnown(err)) {
        if (refused(err)) backToPending(ctx, row.id, (err as Error).message);
        else noteError(ctx, chain.name, (err as Error).message, row.id); // stays submitted: re-broadcast next pass
        return sent; // the rest would meet the same refusal or the same silent node
      }
    }
    nonce += 1n;
    sent += 1;
  }
  return sent;
}

async function confirmSubmitted(ctx: Context, chain: ChainConfig, client: ChainClient): Promise<number> {
  const rows = openRows(ctx, chain.name, "submitted");
  if (!rows.length) return 0;
  const head = await client.blockNumber();
  const needed = BigInt(requiredConfirmations(ctx, chain));
  let anchored = 0;
  for (const row of rows) {
    const hash = row.external_id!;
    const receipt = await client.transactionReceipt(hash);
    if (!receipt) {
      // Unknown to the node: dropped from its mempool, or never sent (a crash right after signing).
      if (row.raw_tx && !(await client.transactionExists(hash))) {
        try {
          await client.sendRawTransaction(row.raw_tx);
        } catch (err) {
          if (refused(err)) backToPending(ctx, row.id, `re-broadcast refused: ${(err as Error).message}`);
          else if (!alreadyKnown(err)) throw err;
        }
      }
      continue;
    }
    if (receipt.status === 0) {
      backToPending(ctx, row.id, "the anchor transaction reverted");
      continue;
    }
    const confirmations = head - receipt.blockNumber + 1n;
    if (confirmations >= needed) {
      anchored += ctx.db
        .query("UPDATE anchors SET status = 'anchored', block_number = ?, confirmed_at = ?, raw_tx = NULL, last_error = NULL WHERE id = ? AND status = 'submitted'")
        .run(Number(receipt.blockNumber), ctx.clock.now(), row.id).changes;
    } else {
      ctx.db.query("UPDATE anchors SET block_number = ? WHERE id = ?").run(Number(receipt.blockNumber), row.id);
    }
  }
  return anchored;
}

export const evmVerify = (memo: string, chain: string, chainId: number, hash: string | null, confirmations: number): string =>
  hash
    ? `Transaction ${hash} on ${chain} (chain id ${chainId}): fetch it from any node of that chain (eth_getTransactionByHash) or its explorer; ` +
      `its input data, decoded as UTF-8, is exactly "${memo}". It counts as anchored once it has ${confirmations} confirmation(s). ` +
      "Then recompute the root from this document's leaves (RFC 6962) and compare."
    : `Not broadcast yet: a transaction on ${chain} (chain id ${chainId}) whose input data is the UTF-8 memo "${memo}" is queued and retried until it is sent.`;
