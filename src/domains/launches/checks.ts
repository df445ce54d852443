/**
 * A reserve check: the custodian's reserve figure (retrieved through the evidence area,
 * fingerprinted and kept) against the bound token's totalSupply() read at the chain's head.
 *
 *   VERIFIED     reserves ≥ supply (both in the token's base units: the figure × 10^decimals, floor)
 *   DISCREPANCY  reserves < supply: the token is under-backed; the check says by how much
 *   UNAVAILABLE  the custodian or the chain did not answer as it must; no figure is guessed
 *
 * Before a token is bound nothing can have been minted: the supply is 0 and the check records
 * the reserves alone. Each check is a versioned row (seq) and an entry of the actions log.
 */
import type { Context } from "../../context.ts";
import { retrieve, scaledUnits } from "../evidence/index.ts";
import { appendAction } from "./actions.ts";
import { boundChain, ChainUnreadable, NotAnErc20, readToken } from "./onchain.ts";
import { custodianOf } from "./service.ts";
import { type CheckRow, insertCheck, type LaunchRow } from "./store.ts";

export type Trigger = CheckRow["trigger"];

export async function runCheck(ctx: Context, launch: LaunchRow, trigger: Trigger): Promise<CheckRow> {
  const base = {
    launch_id: launch.id,
    trigger,
    decimals: launch.decimals,
    chain_id: launch.chain_id,
    token: launch.token,
  };
  const unavailable = (reason: string, evidence: string | null = null): Omit<CheckRow, "seq"> => ({
    ...base,
    status: "UNAVAILABLE",
    reserves_figure: null,
    reserves_units: null,
    supply_units: null,
    block_number: null,
    evidence,
    reason,
    checked_at: ctx.clock.now(),
  });

  let result: Omit<CheckRow, "seq">;
  const got = await retrieve(ctx, launch.account_id, custodianOf(launch));
  if (!got.ok) {
    result = unavailable(`custodian: ${got.reason}`);
  } else if (got.figure === null) {
    result = unavailable("custodian: the source has no pointer to a reserve figure", JSON.stringify(got.reference));
  } else {
    const reserves = scaledUnits(got.figure, launch.decimals);
    let supply = 0n;
    let block: number | null = null;
    let chainProblem: string | null = null;
    if (launch.token !== null) {
      const chain = boundChain(ctx, launch.chain, launch.chain_id);
      if (!chain) {
        chainProblem = `chain "${launch.chain}" (chain id ${launch.chain_id}) is no longer configured`;
      } else {
        try {
          const state = await readToken(ctx, chain, launch.token);
          supply = state.total_supply;
          block = Number(state.block);
        } catch (err) {
          if (!(err instanceof ChainUnreadable || err instanceof NotAnErc20)) throw err;
          chainProblem = err.message;
        }
      }
    }
    if (chainProblem !== null) {
      result = { ...unavailable(`supply: ${chainProblem}`, JSON.stringify(got.reference)), reserves_figure: got.figure, reserves_units: reserves.toString() };
    } else {
      const backed = reserves >= supply;
      result = {
        ...base,
        status: backed ? "VERIFIED" : "DISCREPANCY",
        reserves_figure: got.figure,
        reserves_units: reserves.toString(),
        supply_units: supply.toString(),
        block_number: block,
        evidence: JSON.stringify(got.reference),
        reason: backed ? null : `reserves cover ${reserves} of ${supply} base units in supply: short by ${supply - reserves}`,
        checked_at: ctx.clock.now(),
      };
    }
  }
  return ctx.tx.run(() => {
    const row = insertCheck(ctx, result);
    appendAction(ctx, launch.id, "check", {
      seq: row.seq,
      status: row.status,
      trigger,
      reserves_units: row.reserves_units,
      supply_units: row.supply_units,
      evidence_sha256: got.ok ? got.reference.content_sha256 : null,
    });
    return row;
  });
}
