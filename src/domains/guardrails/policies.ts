/**
 * GET /v1/policies: every rule that decides what the account's calls may do, in one list —
 * its guardrails, each live key's scopes and spend controls, and its model routes. The rules
 * stay with their owners (guardrails here, keys in keys, routes in inference); this reads them
 * through their front doors so the answer is always what is enforced, never a copy.
 */
import type { Context } from "../../context.ts";
import { modelRoutesOf } from "../inference/index.ts";
import { listKeys } from "../keys/index.ts";
import { guardrailsOf } from "./store.ts";

export function effectivePolicies(ctx: Context, accountId: string) {
  const guardrails = guardrailsOf(ctx, accountId).map((g) => ({
    type: "guardrail" as const,
    id: g.id,
    name: g.name,
    applies_to: { keys: g.scope_keys, models: g.scope_models },
    rules: g.detectors.map((d) => ({ ...d })),
  }));
  const keys = listKeys(ctx, accountId)
    .filter((k) => k.status === "active" || k.status === "frozen")
    .map((k) => ({
      type: "key_scopes" as const,
      id: k.id,
      name: k.name,
      applies_to: { keys: [k.id], models: k.allowed_models },
      rules: [
        {
          scopes: k.scopes,
          allowed_models: k.allowed_models,
          allowed_services: k.allowed_services,
          monthly_cap_micro_usd: k.monthly_cap_micro_usd,
          total_cap_micro_usd: k.total_cap_micro_usd,
          breaker_micro_usd_per_minute: k.breaker_micro_usd_per_minute,
          privacy_tier: k.privacy_tier,
          status: k.status,
        },
      ],
    }));
  const routes = modelRoutesOf(ctx, accountId).map((r) => ({
    type: "model_route" as const,
    id: r.from,
    name: null,
    applies_to: { keys: null, models: [r.from] },
    rules: [{ to: r.to }],
  }));
  return [...guardrails, ...keys, ...routes];
}
