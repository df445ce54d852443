/**
 * The seller's side of the marketplace and the public listings (docs/services.md): making a
 * service, changing what may change (price, description, listing, enabled), deleting it (its
 * slug stays taken forever, so a buyer who saved a slug is never sent to someone else), the
 * calls it was paid for, and the public directory and service page.
 *
 * Tenancy: every /manage/ route looks a slug up among the caller's own live services; another
 * account's slug, a deleted one and an unknown one are the same 404.
 */
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, conflict, forbidden, invalidField, notFound, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { checkChatModel } from "../inference/index.ts";
import { resolveTarget, TargetRefused } from "../webhooks/index.ts";
import * as L from "./limits.ts";
import * as S from "./store.ts";
import type { CallRow, ServiceRow } from "./store.ts";
import { acceptsOf, invokePath } from "./terms.ts";
import { paymentFacts } from "./call-facts.ts";

export interface ServiceInput {
  slug: string;
  name: string;
  description: string;
  priceMicroUsd: number;
  payee: string;
  upstreamUrl: string | null;
  handler: string | null;
  listed: boolean;
}

export interface ServicePatch {
  priceMicroUsd?: number;
  description?: string;
  listed?: boolean;
  enabled?: boolean;
}

/** What seller and buyer both see of a service. */
const basics = (row: ServiceRow) => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  price_micro_usd: row.price_micro_usd,
  payee: toChecksumAddress(row.payee),
  invoke_path: invokePath(row.slug),
});

/** What the seller sees of one of its services. */
export function serviceView(row: ServiceRow) {
  return {
    ...basics(row),
    kind: row.upstream_url !== null ? ("upstream" as const) : ("handler" as const),
    upstream_url: row.upstream_url,
    handler: row.handler_model,
    listed: row.listed === 1,
    enabled: row.enabled === 1,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    deleted_at: row.deleted_at === null ? null : isoTime(row.deleted_at),
  };
}

/** What anyone sees: the price, who is paid, and the x402 terms; never where the service runs. */
function publicView(ctx: Context, row: ServiceRow) {
  return { ...basics(row), x402Version: 1 as const, accepts: acceptsOf(ctx.config, row) };
}

function callView(row: CallRow) {
  return {
    id: row.id,
    status: row.status,
    ...paymentFacts(row),
    http_status: row.http_status,
    latency_ms: row.latency_ms,
    request_sha256: row.request_sha256,
    response_sha256: row.response_sha256,
    error: row.error,
    receipt: row.statement === null ? null : { statement: row.statement, signature: row.signature!, signer: row.signer! },
    created_at: isoTime(row.created_at),
    finished_at: row.finished_at === null ? null : isoTime(row.finished_at),
  };
}

/** A service can only be sold where a buyer can pay: at least one configured chain. */
function requireChains(ctx: Context): void {
  if (!ctx.config.chains.length) throw notImplemented("the services marketplace (the operator has configured no chain to pay on)");
}

async function checkUpstream(ctx: Context, url: string): Promise<void> {
  try {
    await resolveTarget(url, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidField("upstream_url", err.message);
    throw err;
  }
}

export async function createService(ctx: Context, accountId: string, input: ServiceInput) {
  requireChains(ctx);
  const slug = input.slug;
  if (L.RESERVED_SLUGS.includes(slug)) throw invalidField("slug", `"${slug}" is a reserved path segment (/v1/services/${slug}); choose another`);
  if ((input.upstreamUrl === null) === (input.handler === null)) throw invalidField(input.upstreamUrl === null ? "upstream_url" : "handler", "give exactly one of upstream_url (forward calls there) and handler (a chat model or engine/<slug> answers them)");
  const payee = input.payee.toLowerCase();
  if (payee === ctx.config.billing.treasury.toLowerCase()) throw invalidField("payee", "is this deployment's treasury: buyers pay the seller directly, never svc");
  if (!walletAddressesOf(ctx, accountId).some((w) => w.toLowerCase() === payee)) {
    throw forbidden("payee_not_linked", `${toChecksumAddress(payee)} is not a wallet linked to this account; link it (POST /v1/auth/wallets) or name one that is`, { payee: toChecksumAddress(payee) });
  }
  if (input.upstreamUrl !== null) await checkUpstream(ctx, input.upstreamUrl);
  if (input.handler !== null) checkChatModel(ctx, input.handler, "handler", accountId);

  const now = ctx.clock.now();
  const row: ServiceRow = {
    id: newId("svc"),
    account_id: accountId,
    slug,
    name: input.name.trim(),
    description: input.description.trim(),
    price_micro_usd: input.priceMicroUsd,
    payee,
    upstream_url: input.upstreamUrl,
    handler_model: input.handler,
    listed: input.listed ? 1 : 0,
    enabled: 1,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  return ctx.tx.run(() => {
    // Re-checked inside the write: of two creations racing for a slug, one wins.
    if (S.slugTaken(ctx, slug)) throw conflict("slug_taken", `the slug "${slug}" is taken (slugs of deleted services stay taken)`);
    if (S.liveServiceCount(ctx, accountId) >= L.MAX_SERVICES_PER_ACCOUNT) {
      throw new ApiError(409, "service_limit_reached", `this account has ${L.MAX_SERVICES_PER_ACCOUNT} services, the most allowed; delete one first`, { limit: L.MAX_SERVICES_PER_ACCOUNT });
    }
    S.insertService(ctx, row);
    return serviceView(row);
  });
}

export const listServices = (ctx: Context, accountId: string) => S.liveServicesOf(ctx, accountId).map(serviceView);

/** The caller's live service with that slug; 404 alike for unknown, deleted and another account's. */
function ownService(ctx: Context, accountId: string, slug: string): ServiceRow {
  const row = S.liveServiceBySlug(ctx, slug);
  if (!row || row.account_id !== accountId) throw notFound("service");
  return row;
}

export function patchService(ctx: Context, accountId: string, slug: string, patch: ServicePatch) {
  if (patch.priceMicroUsd === undefined && patch.description === undefined && patch.listed === undefined && patch.enabled === undefined) {
    throw invalidField("body", "name at least one of price_micro_usd, description, listed, enabled");
  }
  return ctx.tx.run(() => {
    const row = ownService(ctx, accountId, slug);
    const next: ServiceRow = {
      ...row,
      price_micro_usd: patch.priceMicroUsd ?? row.price_micro_usd,
      description: patch.description?.trim() ?? row.description,
      listed: patch.listed === undefined ? row.listed : patch.listed ? 1 : 0,
      enabled: patch.enabled === undefined ? row.enabled : patch.enabled ? 1 : 0,
      updated_at: ctx.clock.now(),
    };
    S.updateService(ctx, row.id, next);
    return serviceView(next);
  });
}

export function deleteService(ctx: Context, accountId: string, slug: string) {
  return ctx.tx.run(() => {
    const row = ownService(ctx, accountId, slug);
    const at = ctx.clock.now();
    S.markDeleted(ctx, row.id, at);
    return serviceView({ ...row, deleted_at: at, updated_at: at, listed: 0, enabled: 0 });
  });
}

export function serviceCalls(ctx: Context, accountId: string, slug: string) {
  const row = ownService(ctx, accountId, slug);
  return { calls: S.recentCalls(ctx, row.id, L.CALLS_CAP).map(callView), service_id: row.id, slug: row.slug };
}

/** Spec §2.1: {services, ordering, settlement}; at most 200 (spec §8). */
export function directory(ctx: Context) {
  const rows = S.directoryRows(ctx, L.DIRECTORY_CAP);
  return {
    services: rows.map((r) => ({ ...publicView(ctx, r), calls_completed: r.calls_completed })),
    ordering: "calls_completed_desc" as const,
    settlement: {
      protocol: "x402" as const,
      scheme: "exact" as const,
      custody: "none" as const,
      description: "each call is paid by an on-chain USDT transfer from the buyer straight to the service's payee wallet; svc verifies the transfer and never holds the funds",
      chains: ctx.config.chains.map((c) => ({ name: c.name, chain_id: c.chain_id, token: toChecksumAddress(c.usdt), decimals: c.decimals, confirmations: c.confirmations })),
    },
  };
}

/** A service buyers can call: live and enabled, whoever owns it. Disabled and deleted ones are 404 like unknown ones. */
export function callableService(ctx: Context, slug: string): ServiceRow {
  const row = S.liveServiceBySlug(ctx, slug);
  if (!row || row.enabled !== 1) throw notFound("service");
  return row;
}

export const publicService = (ctx: Context, slug: string) => publicView(ctx, callableService(ctx, slug));
