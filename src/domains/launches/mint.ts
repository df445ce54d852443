/**
 * Mint eligibility and mint authorizations (spec §4.4: "requires latest check VERIFIED, token
 * not paused, holdings cover new supply").
 *
 * A launch may mint when its latest check is VERIFIED and fresh (not older than two intervals),
 * a token is bound and not paused (a contract without paused() cannot be), and the headroom
 * covers the amount: headroom = reserves of that check − totalSupply() read now − every
 * authorization still inside its deadline. Counting unexpired authorizations keeps two of them
 * from spending the same headroom; one that was minted is counted twice until its deadline
 * passes (in the supply and as outstanding): conservative, never generous.
 *
 * The authorization is an EIP-712 MintAuthorization {launch, to, amount, nonce, deadline} in the
 * domain {name: "svc", version: "1", chainId, verifyingContract: token}, signed by the service's
 * signer; nonces count up per launch from 1.
 */
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, conflict, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { isoTime, unixSecs } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { appendAction } from "./actions.ts";
import { isStale } from "./check-view.ts";
import { boundChain, ChainUnreadable, NotAnErc20, readToken } from "./onchain.ts";
import { activeLaunch, managedLaunch } from "./service.ts";
import { insertMintAuthorization, latestCheck, type LaunchRow, outstandingAuthorized, takeMintNonce } from "./store.ts";
import { chainUnavailable } from "./token.ts";
import { domainOf, MINT_AUTHORIZATION_TYPES, signTypedData } from "./typed-data.ts";

export interface Eligibility {
  eligible: boolean;
  reasons: string[];
  latest_check_seq: number | null;
  latest_check_status: string | null;
  check_fresh: boolean;
  token_bound: boolean;
  chain_reachable: boolean | null;
  paused: boolean | null;
  reserves_units: string | null;
  supply_units: string | null;
  outstanding_units: string;
  /** reserves − supply − outstanding; negative when under water; null when a figure is missing. */
  headroom_units: string | null;
}

interface Judged {
  view: Eligibility;
  headroom: bigint | null;
  checkSeq: number | null;
  chainDown: string | null;
}

async function judge(ctx: Context, launch: LaunchRow): Promise<Judged> {
  const reasons: string[] = [];
  const check = latestCheck(ctx, launch.id);
  const fresh = check !== null && !isStale(ctx, launch, check);
  if (launch.status !== "active") reasons.push("the launch is retired");
  if (check === null) reasons.push("no check yet");
  else if (check.status !== "VERIFIED") reasons.push(`the latest check is ${check.status}`);
  else if (!fresh) reasons.push("the latest check is stale");
  const outstanding = outstandingAuthorized(ctx, launch.id, unixSecs(ctx.clock.now()));
  let supply: bigint | null = null;
  let paused: boolean | null = null;
  let reachable: boolean | null = null;
  let chainDown: string | null = null;
  if (launch.token === null) {
    reasons.push("no token is bound");
  } else {
    const chain = boundChain(ctx, launch.chain, launch.chain_id);
    try {
      if (!chain) throw new ChainUnreadable(`chain "${launch.chain}" is no longer configured`);
      const state = await readToken(ctx, chain, launch.token);
      reachable = true;
      supply = state.total_supply;
      paused = state.paused;
      if (paused) reasons.push("the token is paused");
    } catch (err) {
      if (!(err instanceof ChainUnreadable || err instanceof NotAnErc20)) throw err;
      reachable = err instanceof NotAnErc20;
      chainDown = err.message;
      reasons.push(`the token cannot be read: ${err.message}`);
    }
  }
  const reserves = check?.status === "VERIFIED" && check.reserves_units !== null ? BigInt(check.reserves_units) : null;
  const headroom = reserves !== null && supply !== null ? reserves - supply - outstanding : null;
  if (headroom !== null && headroom <= 0n) reasons.push("reserves leave no headroom over the supply and outstanding authorizations");
  return {
    view: {
      eligible: reasons.length === 0,
      reasons,
      latest_check_seq: check?.seq ?? null,
      latest_check_status: check?.status ?? null,
      check_fresh: fresh,
      token_bound: launch.token !== null,
      chain_reachable: reachable,
      paused,
      reserves_units: reserves?.toString() ?? null,
      supply_units: supply?.toString() ?? null,
      outstanding_units: outstanding.toString(),
      headroom_units: headroom?.toString() ?? null,
    },
    headroom,
    checkSeq: check?.seq ?? null,
    chainDown,
  };
}

export const mintEligibility = async (ctx: Context, launch: LaunchRow): Promise<Eligibility> => (await judge(ctx, launch)).view;

/** POST /v1/launches/:id/mint-authorizations. */
export async function authorizeMint(ctx: Context, accountId: string, id: string, input: { amount: string; to: string }) {
  if (!ctx.config.launches.mint_authorizations_enabled) throw notImplemented("the mint authorization rail (launches.mint_authorizations_enabled)");
  const launch = activeLaunch(managedLaunch(ctx, accountId, id));
  const amount = BigInt(input.amount);
  const judged = await judge(ctx, launch);
  const v = judged.view;
  if (v.latest_check_status !== "VERIFIED") throw conflict("check_not_verified", `minting needs the latest check VERIFIED; it is ${v.latest_check_status ?? "missing"} (POST /v1/launches/${launch.id}/check)`);
  if (!v.check_fresh) throw conflict("check_stale", `the latest check is older than two intervals; check again first (POST /v1/launches/${launch.id}/check)`);
  if (!v.token_bound) throw conflict("token_not_bound", `bind the token first (POST /v1/launches/${launch.id}/token)`);
  if (judged.chainDown !== null) throw chainUnavailable(judged.chainDown);
  if (v.paused) throw conflict("token_paused", "the token is paused; nothing may be minted while it is");
  const short = (headroom: bigint) =>
    new ApiError(409, "reserves_short", `reserves cover ${headroom > 0n ? headroom : 0n} more base units; ${amount} asked`, { headroom_units: headroom.toString(), amount_units: amount.toString(), eligibility: v });
  if (judged.headroom === null || judged.headroom < amount) throw short(judged.headroom ?? 0n);

  const now = ctx.clock.now();
  const deadline = unixSecs(now) + ctx.config.launches.mint_authorization_ttl_secs;
  return ctx.tx.run(() => {
    // Authorizations made while this one's chain reads were in flight spend the same headroom.
    const since = outstandingAuthorized(ctx, launch.id, unixSecs(now)) - BigInt(v.outstanding_units);
    if (judged.headroom! - since < amount) throw short(judged.headroom! - since);
    const nonce = takeMintNonce(ctx, launch.id);
    const to = toChecksumAddress(input.to);
    const signed = signTypedData(ctx.signer, domainOf(launch.chain_id, toChecksumAddress(launch.token!)), MINT_AUTHORIZATION_TYPES, "MintAuthorization", {
      launch: launch.id,
      to,
      amount: amount.toString(),
      nonce: String(nonce),
      deadline: String(deadline),
    });
    const auth = { id: newId("lma"), launch_id: launch.id, nonce, to_address: to, amount_units: amount.toString(), deadline, check_seq: judged.checkSeq!, digest: signed.digest, signature: signed.signature, signer: signed.signer, created_at: now };
    insertMintAuthorization(ctx, auth);
    appendAction(ctx, launch.id, "mint_authorization", { id: auth.id, to, amount_units: auth.amount_units, nonce, deadline, check_seq: auth.check_seq, digest: signed.digest });
    return {
      id: auth.id,
      launch_id: launch.id,
      check_seq: auth.check_seq,
      deadline: isoTime(deadline * 1000),
      created_at: isoTime(now),
      ...signed,
    };
  });
}
