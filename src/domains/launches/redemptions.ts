/**
 * Redemptions (spec §4.1): a holder burns tokens on chain, then anyone posts the transaction and
 * svc answers a signed redemption receipt (an EIP-191 statement, core/statements.ts) the holder
 * presents to the issuer.
 *
 * A burn is an ERC-20 Transfer log of the launch's bound token to the zero address — what a
 * burn() emits, and what a plain transfer to 0x0 emits on tokens that allow it. The transaction
 * is read through billing's inspectTransaction (the node's chain id, a mined receipt with status
 * 1, confirmations), and must have the chain's required confirmations.
 *
 * Idempotent per burn log: (chain id, tx hash, the log's position in the receipt) is UNIQUE, so
 * posting the same burn again answers the same receipt (200), however often and by whomever.
 */
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, conflict, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { inspectTransaction, normalizeTxHash } from "../billing/index.ts";
import { appendAction } from "./actions.ts";
import { boundChain } from "./onchain.ts";
import { publicLaunch } from "./service.ts";
import { insertRedemption, type LaunchRow, redemptionOfLog, type RedemptionRow, redemptionsOf } from "./store.ts";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
export const REDEMPTIONS_LIST_CAP = 200;

export function redemptionView(launch: LaunchRow, r: RedemptionRow) {
  return {
    id: r.id,
    launch_id: launch.id,
    slug: launch.slug,
    chain_id: r.chain_id,
    token: launch.token!,
    tx_hash: r.tx_hash,
    log_index: r.log_index,
    redeemer: toChecksumAddress(r.from_address),
    amount_units: r.amount_units,
    block_number: r.block_number,
    statement: r.statement,
    signature: r.signature,
    signer: r.signer,
    payload: JSON.parse(Buffer.from(r.statement, "base64url").toString("utf8")) as Record<string, unknown>,
    created_at: isoTime(r.created_at),
  };
}

export function listRedemptions(ctx: Context, slug: string) {
  const launch = publicLaunch(ctx, slug);
  return { launch, rows: redemptionsOf(ctx, launch.id, REDEMPTIONS_LIST_CAP).map((r) => redemptionView(launch, r)) };
}

export async function redeem(ctx: Context, slug: string, input: { tx_hash: string; log_index?: number }) {
  const launch = publicLaunch(ctx, slug);
  if (launch.token === null) throw conflict("token_not_bound", "the launch has no token bound yet, so nothing of it can be burned");
  const chain = boundChain(ctx, launch.chain, launch.chain_id);
  if (!chain) throw conflict("chain_not_configured", `chain "${launch.chain}" (chain id ${launch.chain_id}) is no longer configured on this deployment`);
  const txHash = normalizeTxHash(input.tx_hash);
  const inspection = await inspectTransaction(chain, txHash);
  let burns = inspection.transfers.filter((t) => t.token === launch.token && t.to === ZERO_ADDRESS);
  if (input.log_index !== undefined) burns = burns.filter((t) => t.logIndex === input.log_index);
  if (!burns.length) {
    throw new ApiError(422, "no_burn", `transaction ${txHash} holds no transfer of ${toChecksumAddress(launch.token)} to the zero address${input.log_index === undefined ? "" : ` at log index ${input.log_index}`}`);
  }
  if (burns.length > 1) throw invalidField("log_index", `transaction ${txHash} holds ${burns.length} burns of the token; name one by its log_index (${burns.map((b) => b.logIndex).join(", ")})`);
  const burn = burns[0]!;
  const existing = redemptionOfLog(ctx, chain.chain_id, txHash, burn.position);
  if (existing) return { redemption: redemptionView(launch, existing), created: false };
  if (inspection.confirmations < chain.confirmations) {
    throw new ApiError(409, "not_enough_confirmations", `transaction ${txHash} has ${inspection.confirmations} of the ${chain.confirmations} confirmations chain "${chain.name}" requires; post it again once it has them`, {
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
    });
  }
  return ctx.tx.run(() => {
    const raced = redemptionOfLog(ctx, chain.chain_id, txHash, burn.position);
    if (raced) return { redemption: redemptionView(launch, raced), created: false };
    const id = newId("lrd");
    const now = ctx.clock.now();
    const signed = signStatement(ctx.signer, {
      v: 1,
      type: "launch-redemption",
      redemption_id: id,
      launch_id: launch.id,
      slug: launch.slug,
      chain: chain.name,
      chain_id: chain.chain_id,
      token: toChecksumAddress(launch.token!),
      tx_hash: txHash,
      log_index: burn.logIndex,
      log_position: burn.position,
      redeemer: toChecksumAddress(burn.from),
      amount_units: burn.value.toString(),
      decimals: launch.decimals,
      block_number: inspection.blockNumber,
      block_hash: inspection.blockHash,
      confirmations: inspection.confirmations,
      spec_digest: launch.digest,
      recorded_at: isoTime(now),
    });
    const row: RedemptionRow = {
      id,
      launch_id: launch.id,
      chain_id: chain.chain_id,
      tx_hash: txHash,
      log_position: burn.position,
      log_index: burn.logIndex,
      from_address: burn.from,
      amount_units: burn.value.toString(),
      block_number: inspection.blockNumber,
      block_hash: inspection.blockHash,
      ...signed,
      created_at: now,
    };
    insertRedemption(ctx, row);
    appendAction(ctx, launch.id, "redemption", { redemption_id: id, tx_hash: txHash, log_index: burn.logIndex, redeemer: toChecksumAddress(burn.from), amount_units: row.amount_units });
    return { redemption: redemptionView(launch, row), created: true };
  });
}
