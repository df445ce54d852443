/** The launches area's svc.toml section (launches.*; docs/launches.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const LaunchesSection = T.Object(
  {
    /** POST /v1/launches answers 501 not_implemented while off (spec §7): issuing backed tokens is an operator's decision. */
    enabled: T.Boolean(),
    /** The mint authorization rail (POST /v1/launches/:id/mint-authorizations): 501 while off (spec §7 names it apart). */
    mint_authorizations_enabled: T.Boolean(),
    /** Launch subscriptions (session and public subscription routes): 501, or enabled:false on the public read, while off. */
    subscriptions_enabled: T.Boolean(),
    /** Charged (metered, receipted) when a launch is created; published by GET /v1/launches/fees. */
    launch_fee_micro_usd: MicroUsd(),
    /** Charged every 30 days a launch stays active, by its scheduled check; published by GET /v1/launches/fees. */
    monthly_fee_micro_usd: MicroUsd(),
    /** What a check demanded by anyone (POST /v1/launches/public/:slug/check) costs, paid by x402 to the treasury; 0: free. */
    public_check_price_micro_usd: MicroUsd(),
    /** A demanded check within this many seconds of the launch's latest check answers 429 with retry_after_secs. */
    public_check_cooldown_secs: T.Integer({ minimum: 0, maximum: 86_400 }),
    /** Per attempt, for every chain read of the area (supply, decimals, paused); a silent node is reachable:false after it. */
    rpc_timeout_ms: T.Integer({ minimum: 50, maximum: 60_000 }),
    /** How long a signed mint authorization stays valid (its deadline); unexpired ones count against the reserve headroom. */
    mint_authorization_ttl_secs: T.Integer({ minimum: 60, maximum: 7 * 86_400 }),
    /**
     * A file of sanctioned addresses (one 0x address a line, # comments) that subscription
     * authorizations are screened against, read at each authorization. Fail-closed: while it is
     * unset or unreadable, every authorization is refused (503 screening_unavailable).
     */
    sanctions_list_path: T.String({ maxLength: 4096 }),
    /** Smallest interval_s a launch may ask for between scheduled checks. */
    min_interval_secs: T.Integer({ minimum: 60, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    launches: Static<typeof LaunchesSection>;
  }
}

export const launchesConfig: ConfigPart = {
  sections: {
    launches: {
      schema: LaunchesSection,
      default: {
        enabled: false,
        mint_authorizations_enabled: false,
        subscriptions_enabled: false,
        launch_fee_micro_usd: 0,
        monthly_fee_micro_usd: 0,
        public_check_price_micro_usd: 0,
        public_check_cooldown_secs: 300,
        rpc_timeout_ms: 5000,
        mint_authorization_ttl_secs: 900,
        min_interval_secs: 300,
        sanctions_list_path: "",
      },
    },
  },
  env: [
    { name: "SVC_LAUNCHES_ENABLED", path: "launches.enabled", type: "boolean" },
    { name: "SVC_LAUNCHES_MINT_AUTHORIZATIONS_ENABLED", path: "launches.mint_authorizations_enabled", type: "boolean" },
    { name: "SVC_LAUNCHES_SUBSCRIPTIONS_ENABLED", path: "launches.subscriptions_enabled", type: "boolean" },
  ],
};
