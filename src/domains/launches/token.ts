/**
 * Binding a launch's ERC-20 (spec §3: unbound → bound, once; a second call answers 409
 * already_bound whatever it names) and the live on-chain view of it.
 *
 * Binding reads the contract first: it must answer totalSupply() and decimals() as an ERC-20
 * does, with the launch's decimals (the scale its custodian figure is counted in). The UPDATE is
 * guarded by "no token yet", so of two binds racing one wins.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, conflict } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { chainNamed } from "../billing/index.ts";
import { appendAction } from "./actions.ts";
import { boundChain, ChainUnreadable, NotAnErc20, readToken } from "./onchain.ts";
import { activeLaunch, managedLaunch } from "./service.ts";
import { bindToken, launchById, type LaunchRow } from "./store.ts";

const alreadyBound = (row: LaunchRow) => conflict("already_bound", `launch ${row.id} is already bound to ${row.token} on chain "${row.chain}"; a launch binds one token, once`);

export const chainUnavailable = (message: string): ApiError => new ApiError(503, "chain_unavailable", `${message}; try again later`, {}, { "retry-after": "30" });

export async function bindLaunchToken(ctx: Context, accountId: string, id: string, input: { chain: string; token: string }): Promise<LaunchRow> {
  const row = activeLaunch(managedLaunch(ctx, accountId, id));
  if (row.token !== null) throw alreadyBound(row);
  const chain = chainNamed(ctx.config, input.chain);
  const token = input.token.toLowerCase();
  let state;
  try {
    state = await readToken(ctx, chain, token);
  } catch (err) {
    if (err instanceof NotAnErc20) throw new ApiError(422, "not_an_erc20", `${token} on chain "${chain.name}": ${err.message}`, { param: "token" });
    if (err instanceof ChainUnreadable) throw chainUnavailable(err.message);
    throw err;
  }
  if (state.decimals !== row.decimals) {
    throw new ApiError(422, "decimals_mismatch", `the contract has ${state.decimals} decimals; the launch counts in ${row.decimals} (PATCH decimals first if the launch's are wrong)`, {
      param: "token",
      contract_decimals: state.decimals,
      launch_decimals: row.decimals,
    });
  }
  return ctx.tx.run(() => {
    if (!bindToken(ctx, row.id, { chain: chain.name, chain_id: chain.chain_id, token, now: ctx.clock.now() })) throw alreadyBound(launchById(ctx, row.id)!);
    appendAction(ctx, row.id, "token_bound", { chain: chain.name, chain_id: chain.chain_id, token, total_supply_units: state.total_supply.toString(), block_number: Number(state.block) });
    return launchById(ctx, row.id)!;
  });
}

/** GET /v1/launches/public/:slug/onchain: read live; a node that does not answer is reachable:false, never an error. */
export async function onchainView(ctx: Context, row: LaunchRow) {
  const base = { launch_id: row.id, slug: row.slug, chain: row.chain, chain_id: row.chain_id, token: row.token, read_at: isoTime(ctx.clock.now()) };
  const blank = { block_number: null, total_supply_units: null, decimals: null, paused: null };
  if (row.token === null) return { ...base, bound: false, reachable: null, ...blank, reason: "no token is bound yet" };
  const chain = boundChain(ctx, row.chain, row.chain_id);
  if (!chain) return { ...base, bound: true, reachable: false, ...blank, reason: `chain "${row.chain}" (chain id ${row.chain_id}) is no longer configured` };
  try {
    const state = await readToken(ctx, chain, row.token);
    return { ...base, bound: true, reachable: true, block_number: Number(state.block), total_supply_units: state.total_supply.toString(), decimals: state.decimals, paused: state.paused, reason: null };
  } catch (err) {
    if (err instanceof ChainUnreadable) return { ...base, bound: true, reachable: false, ...blank, reason: err.message };
    if (err instanceof NotAnErc20) return { ...base, bound: true, reachable: true, ...blank, reason: err.message };
    throw err;
  }
}
