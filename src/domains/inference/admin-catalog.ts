/**
 * GET /v1/admin/providers: the inference catalogue as the operator sees it — what `svc providers
 * list` and `svc models list` print — read from the live catalogue (catalog.ts), so it shows what
 * a running server uses after a hot reload, not what it started with.
 *
 * Never a credential: a provider's key source is named (env variable, sealed, none) but not its
 * value or ciphertext, and its base URL is reduced to its host, since user info and query strings
 * are where keys sometimes hide. Extra header values are left out for the same reason.
 */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import type { CatalogModel, CatalogProvider, CatalogSnapshot } from "./catalog.ts";
import { credentialSource } from "./providers/credentials.ts";

/** The host (and port) of a base URL; null when it does not parse. */
export function baseUrlHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

function providerView(p: CatalogProvider, snapshot: CatalogSnapshot) {
  const source = credentialSource(p.config);
  const models = [...snapshot.models.values()];
  return {
    name: p.name,
    kind: p.kind,
    base_url_host: baseUrlHost(p.config.base_url),
    credential: source.kind,
    api_key_env: source.kind === "env" ? source.variable : null,
    available: p.available,
    unavailable_reason: p.unavailableReason,
    regions: [...p.regions],
    privacy_tiers: [...p.privacyTiers],
    timeout_secs: p.config.timeout_secs,
    supports_responses: p.config.supports_responses,
    models: models.filter((m) => m.provider === p.name).map((m) => m.id),
    fallback_for: models.filter((m) => m.fallback_providers.includes(p.name)).map((m) => m.id),
  };
}

function modelView(m: CatalogModel, snapshot: CatalogSnapshot) {
  const serving = snapshot.servingProviders(m)[0] ?? null;
  return {
    id: m.id,
    type: m.type,
    provider: m.provider,
    upstream: m.upstream,
    fallback_providers: [...m.fallback_providers],
    serving_provider: serving?.name ?? null,
    listed: serving !== null,
    pricing: {
      input_micro_usd_per_mtok: m.input_micro_usd_per_mtok ?? null,
      output_micro_usd_per_mtok: m.output_micro_usd_per_mtok ?? null,
      cached_input_micro_usd_per_mtok: m.cached_input_micro_usd_per_mtok ?? null,
    },
    context_length: m.context_length ?? null,
    max_output: m.max_output ?? null,
    modalities: [...m.modalities],
    price_micro_usd_per_image: m.price_micro_usd_per_image ?? null,
    price_micro_usd_per_second: m.price_micro_usd_per_second ?? null,
    created: m.created,
  };
}

export function adminCatalog(ctx: Context) {
  const snapshot = ctx.catalog.current();
  return {
    loaded_at: isoTime(snapshot.loadedAt),
    providers: [...snapshot.providers.values()].map((p) => providerView(p, snapshot)),
    models: [...snapshot.models.values()].map((m) => modelView(m, snapshot)),
  };
}
