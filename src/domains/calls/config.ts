/** The sealed-calls area's svc.toml section (calls.*; docs/calls.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const CallsSection = T.Object(
  {
    /** What one commit costs. 0 (the default) still settles through the meter, so every commit gets its signed receipt. */
    commit_price_micro_usd: MicroUsd(),
    /**
     * How often the commits made since the last batch are gathered under one Merkle root and
     * anchored. One root per interval rather than per commit, so an evm anchor costs one
     * transaction per batch however many calls it covers.
     */
    anchor_interval_secs: T.Integer({ minimum: 1, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    calls: Static<typeof CallsSection>;
  }
}

export const callsConfig: ConfigPart = {
  sections: { calls: { schema: CallsSection, default: { commit_price_micro_usd: 0, anchor_interval_secs: 60 } } },
  env: [{ name: "SVC_CALLS_COMMIT_PRICE_MICRO_USD", path: "calls.commit_price_micro_usd", type: "integer" }],
};
