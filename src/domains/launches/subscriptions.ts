/**
 * Launch subscriptions (behind launches.subscriptions_enabled, off by default: 501 on every
 * subscription route but the public read, which answers enabled:false).
 *
 * Minimal and real: the issuer binds subscription terms to a launch — a payment token on a
 * configured chain, a price in its base units per period, and a payee among the account's own
 * linked wallets. The public reads the terms (payment_token_decimals is read from the token;
 * null when it has no decimals()). A would-be subscriber asks for an authorization: it is
 * screened against the operator's sanctions list and, if clear, answered with an EIP-712
 * SubscriptionAuthorization {launch, subscriber, paymentToken, price, period, deadline} signed by
 * the service. Fail-closed: with no list configured, or the list unreadable, every authorization
 * is refused (503 screening_unavailable) — svc never authorizes an address it could not screen.
 * svc moves no money; the subscriber pays the payee on chain.
 */
import { readFileSync } from "node:fs";
import { isoTime, unixSecs } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, forbidden, notFound, notImplemented } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { chainNamed } from "../billing/index.ts";
import { appendAction } from "./actions.ts";
import { ChainUnreadable, decimalsOf } from "./onchain.ts";
import { activeLaunch, managedLaunch, publicLaunch, visibleLaunch } from "./service.ts";
import { type LaunchRow, subscriptionOf, type SubscriptionRow, upsertSubscription } from "./store.ts";
import { chainUnavailable } from "./token.ts";
import { domainOf, signTypedData, SUBSCRIPTION_AUTHORIZATION_TYPES } from "./typed-data.ts";

function requireRail(ctx: Context): void {
  if (!ctx.config.launches.subscriptions_enabled) throw notImplemented("launch subscriptions (launches.subscriptions_enabled)");
}

const termsView = (launch: LaunchRow, s: SubscriptionRow) => ({
  enabled: true,
  launch_id: launch.id,
  slug: launch.slug,
  chain: s.chain as string | null,
  chain_id: s.chain_id as number | null,
  payment_token: toChecksumAddress(s.payment_token) as string | null,
  payment_token_decimals: s.payment_token_decimals,
  price_units: s.price_units as string | null,
  period_secs: s.period_secs as number | null,
  pay_to: toChecksumAddress(s.pay_to) as string | null,
  updated_at: isoTime(s.updated_at) as string | null,
});

export interface TermsInput {
  chain: string;
  payment_token: string;
  price_units: string;
  period_secs: number;
  pay_to: string;
}

/** POST /v1/launches/:id/subscription: sets (201) or replaces (200) the terms. */
export async function setSubscription(ctx: Context, accountId: string, id: string, input: TermsInput) {
  requireRail(ctx);
  const launch = activeLaunch(managedLaunch(ctx, accountId, id));
  const chain = chainNamed(ctx.config, input.chain);
  const payTo = input.pay_to.toLowerCase();
  if (!walletAddressesOf(ctx, launch.account_id).some((w) => w.toLowerCase() === payTo)) {
    throw forbidden("payee_not_linked", "pay_to must be one of the launch account's linked wallets (POST /v1/auth/wallets)", { param: "pay_to" });
  }
  let decimals: number | null;
  try {
    decimals = await decimalsOf(ctx, chain, input.payment_token.toLowerCase());
  } catch (err) {
    if (err instanceof ChainUnreadable) throw chainUnavailable(err.message);
    throw err;
  }
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const before = subscriptionOf(ctx, launch.id);
    const row: SubscriptionRow = {
      launch_id: launch.id,
      chain: chain.name,
      chain_id: chain.chain_id,
      payment_token: input.payment_token.toLowerCase(),
      payment_token_decimals: decimals,
      price_units: input.price_units,
      period_secs: input.period_secs,
      pay_to: payTo,
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    upsertSubscription(ctx, row);
    appendAction(ctx, launch.id, "subscription_set", { chain: chain.name, payment_token: row.payment_token, price_units: row.price_units, period_secs: row.period_secs, pay_to: toChecksumAddress(payTo) });
    return { terms: termsView(launch, row), created: before === null };
  });
}

/** GET /v1/launches/:id/subscription: 404 when no terms are bound. */
export function getSubscription(ctx: Context, accountId: string, id: string) {
  requireRail(ctx);
  const launch = visibleLaunch(ctx, accountId, id);
  const s = subscriptionOf(ctx, launch.id);
  if (!s) throw notFound("subscription");
  return termsView(launch, s);
}

/** GET /v1/launches/public/:slug/subscription: enabled:false while the rail is off; 404 when nothing is bound. */
export function publicSubscription(ctx: Context, slug: string) {
  const launch = publicLaunch(ctx, slug);
  if (!ctx.config.launches.subscriptions_enabled) {
    return { enabled: false, launch_id: launch.id, slug: launch.slug, chain: null, chain_id: null, payment_token: null, payment_token_decimals: null, price_units: null, period_secs: null, pay_to: null, updated_at: null };
  }
  const s = subscriptionOf(ctx, launch.id);
  if (!s) throw notFound("subscription");
  return termsView(launch, s);
}

/** The operator's list, read now; null when there is none to read (fail-closed upstream). */
function sanctionsList(ctx: Context): { entries: Set<string>; sha256: string } | null {
  const path = ctx.config.launches.sanctions_list_path;
  if (path === "") return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const entries = new Set(
    text
      .split("\n")
      .map((l) => l.replace(/#.*/, "").trim().toLowerCase())
      .filter((l) => /^0x[0-9a-f]{40}$/.test(l)),
  );
  return { entries, sha256: sha256Hex(text) };
}

/** POST /v1/launches/public/:slug/subscription/authorize. */
export function authorizeSubscription(ctx: Context, slug: string, subscriber: string) {
  requireRail(ctx);
  const launch = activeLaunch(publicLaunch(ctx, slug));
  const s = subscriptionOf(ctx, launch.id);
  if (!s) throw notFound("subscription");
  const list = sanctionsList(ctx);
  if (list === null) throw new ApiError(503, "screening_unavailable", "the sanctions screening list is not available, and svc authorizes no subscriber it could not screen; the operator sets launches.sanctions_list_path");
  if (list.entries.has(subscriber.toLowerCase())) throw forbidden("subscriber_sanctioned", "the subscriber address is on the sanctions list this deployment screens against");
  const now = ctx.clock.now();
  const deadline = unixSecs(now) + ctx.config.launches.mint_authorization_ttl_secs;
  const signed = signTypedData(ctx.signer, domainOf(s.chain_id, toChecksumAddress(s.payment_token)), SUBSCRIPTION_AUTHORIZATION_TYPES, "SubscriptionAuthorization", {
    launch: launch.id,
    subscriber: toChecksumAddress(subscriber),
    paymentToken: toChecksumAddress(s.payment_token),
    price: s.price_units,
    period: String(s.period_secs),
    deadline: String(deadline),
  });
  return { launch_id: launch.id, slug: launch.slug, screened_at: isoTime(now), screening_list_sha256: list.sha256, deadline: isoTime(deadline * 1000), ...signed };
}
