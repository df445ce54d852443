/**
 * The public side of a launch (spec §4.1): a demanded check (cooldown, optional x402 price),
 * the signed EIP-712 CheckAttestation of the latest check, and the actions log, paged.
 */
import { spendTreasuryTransfer } from "../billing/index.ts";
import { isoTime, unixSecs } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, notFound, notImplemented } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { actionView } from "./actions.ts";
import { type CheckPayment, rejected, verifyCheckPayment } from "./check-payment.ts";
import { checkView, isStale, staleAt } from "./check-view.ts";
import { runCheck } from "./checks.ts";
import { activeLaunch, publicLaunch } from "./service.ts";
import { actionsPage, latestCheck, spendCheckPayment } from "./store.ts";
import { bytes32, CHECK_ATTESTATION_TYPES, domainOf, signTypedData, ZERO_BYTES32 } from "./typed-data.ts";

export const ACTIONS_LIMIT = { min: 1, max: 200, default: 50 };

/** POST /v1/launches/public/:slug/check: anyone; 429 inside the cooldown; 402 where a price is set. */
export async function demandCheck(ctx: Context, slug: string, headers: Record<string, string | undefined>) {
  const launch = activeLaunch(publicLaunch(ctx, slug));
  const latest = latestCheck(ctx, launch.id);
  const cooldownMs = ctx.config.launches.public_check_cooldown_secs * 1000;
  if (latest && ctx.clock.now() - latest.checked_at < cooldownMs) {
    const wait = Math.max(1, Math.ceil((latest.checked_at + cooldownMs - ctx.clock.now()) / 1000));
    throw new ApiError(429, "check_cooldown", `this launch was checked ${isoTime(latest.checked_at)}; the next demanded check is possible in ${wait} s (read the latest at GET /v1/launches/public/${slug})`, { retry_after_secs: wait }, { "retry-after": String(wait) });
  }
  let payment: CheckPayment | null = null;
  if (ctx.config.launches.public_check_price_micro_usd > 0) {
    if (ctx.config.billing.treasury === "" || !ctx.config.chains.length) throw notImplemented("paid launch checks (no treasury or chain configured)");
    payment = await verifyCheckPayment(ctx, headers);
    const p = payment;
    // Billing's record makes the transfer money once across svc (never also a deposit); the launch's own records which check it paid.
    const spent = ctx.tx.run(
      () =>
        spendTreasuryTransfer(ctx, { chainId: p.chain.chain_id, txHash: p.txHash, position: p.position, purpose: "launch_check", ref: launch.id }) &&
        spendCheckPayment(ctx, { chain_id: p.chain.chain_id, tx_hash: p.txHash, log_position: p.position, launch_id: launch.id, payer: p.payer, amount_units: p.amountUnits.toString(), created_at: ctx.clock.now() }),
    );
    if (!spent) throw rejected("payment_already_used", "this transfer has already paid for a check");
  }
  const check = await runCheck(ctx, launch, "public");
  return { check: { ...checkView(check), stale: false }, payment };
}

/** GET /v1/launches/public/:slug/attestation: 404 until the launch has a check. */
export function attestation(ctx: Context, slug: string) {
  const launch = publicLaunch(ctx, slug);
  const check = latestCheck(ctx, launch.id);
  if (!check) throw notFound("attestation (the launch has no check yet)");
  const evidence = check.evidence === null ? null : (JSON.parse(check.evidence) as { content_sha256: string });
  const signed = signTypedData(ctx.signer, domainOf(check.chain_id, check.token === null ? null : toChecksumAddress(check.token)), CHECK_ATTESTATION_TYPES, "CheckAttestation", {
    launch: launch.id,
    seq: String(check.seq),
    status: check.status,
    reserves: check.reserves_units ?? "0",
    supply: check.supply_units ?? "0",
    checkedAt: String(unixSecs(check.checked_at)),
    evidence: evidence ? bytes32(evidence.content_sha256) : ZERO_BYTES32,
    specDigest: bytes32(launch.digest),
  });
  const stale = isStale(ctx, launch, check);
  return {
    launch_id: launch.id,
    slug: launch.slug,
    check: { ...checkView(check), stale },
    stale,
    stale_after: isoTime(staleAt(launch, check)),
    attestation: signed,
  };
}

export function actionsOf(ctx: Context, slug: string, beforeSeq: number | null, limit: number) {
  const launch = publicLaunch(ctx, slug);
  const rows = actionsPage(ctx, launch.id, beforeSeq, limit);
  const last = rows.at(-1);
  return {
    actions: rows.map(actionView),
    launch_id: launch.id,
    slug: launch.slug,
    next_before_seq: rows.length === limit && last && last.seq > 1 ? last.seq : null,
  };
}
