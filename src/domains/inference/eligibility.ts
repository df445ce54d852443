/**
 * Which providers may serve one call, in the order to try them: the model's own provider, then
 * its fallback_providers (catalog.ts), keeping only those that are available here, can serve
 * the client's API, satisfy the privacy tier and — when svc_region pins one — serve from that
 * region. Nothing eligible is a clear refusal before anything is reserved:
 *
 *   503 model_unavailable          no provider of the model can be called on this deployment
 *   403 privacy_tier_unavailable   none satisfies the tier; for "confidential" the refusal is
 *                                  also an attestation_failed event (spec §6): no backend that
 *                                  could attest to it serves the model
 *   403 region_unavailable         none at that tier serves from the region
 *
 * A provider satisfies a tier when its svc.toml entry lists it (privacy_tiers): the operator's
 * declaration, which for "confidential" should mean an attested (TEE) backend.
 */
import { providerAttested } from "../confidential/index.ts";
import type { PrivacyTier } from "./config.ts";
import { ApiError, forbidden } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import type { CatalogModel, CatalogProvider, CatalogSnapshot } from "./catalog.ts";
import type { Dialect } from "./dialect.ts";

export interface Route {
  tier: PrivacyTier;
  region: string | null;
}

const distinct = (values: Iterable<string>) => [...new Set(values)].sort();
const said = (values: string[]) => values.join(", ") || "none";

export function eligibleProviders(ctx: Context, snapshot: CatalogSnapshot, model: CatalogModel, dialect: Dialect, route: Route, who: { accountId: string; keyId: string | null }): CatalogProvider[] {
  const serving = snapshot.servingProviders(model).filter((p) => dialect.serves(p));
  if (serving.length === 0) {
    throw new ApiError(503, "model_unavailable", `no provider that serves model ${model.id} can be called on this deployment right now`, { model: model.id });
  }
  // With confidential backends configured, declaring the tier is not enough: the provider's TEE
  // must have passed its last live attestation (fail closed until the first one has).
  const attested = (p: CatalogProvider) => route.tier !== "confidential" || ctx.config.confidential.backends.length === 0 || providerAttested(ctx, p.name);
  const tiered = serving.filter((p) => p.privacyTiers.includes(route.tier) && attested(p));
  if (tiered.length === 0) {
    const offered = distinct(serving.flatMap((p) => p.privacyTiers));
    if (route.tier === "confidential") {
      ctx.tx.run(() =>
        ctx.outbox.emit("attestation_failed", who.accountId, {
          model: model.id,
          privacy_tier: route.tier,
          key_id: who.keyId,
          reason: "no provider serving the model is attestable for the confidential tier (none declares it, or its backend has not passed a live attestation)",
        }),
      );
    }
    throw forbidden("privacy_tier_unavailable", `no provider serving model ${model.id} satisfies privacy tier ${route.tier} (tiers offered: ${said(offered)}); the request was not sent anywhere`, {
      model: model.id,
      privacy_tier: route.tier,
      tiers_offered: offered,
    });
  }
  if (route.region === null) return tiered;
  const regional = tiered.filter((p) => p.regions.includes(route.region!));
  if (regional.length === 0) {
    const offered = distinct(tiered.flatMap((p) => p.regions));
    throw forbidden("region_unavailable", `no provider serving model ${model.id} at privacy tier ${route.tier} serves from region ${route.region} (regions offered: ${said(offered)}); the request was not sent anywhere`, {
      model: model.id,
      region: route.region,
      regions_offered: offered,
    });
  }
  return regional;
}
