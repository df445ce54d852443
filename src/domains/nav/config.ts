/** The NAV area's svc.toml section (nav.*; docs/nav.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const NavSection = T.Object(
  {
    /**
     * What one valuation costs (POST /v1/nav/calculate, and refresh with revalue:true), the same
     * whatever its status: an UNAVAILABLE answer took the same retrievals.
     */
    calculate_price_micro_usd: MicroUsd(),
    /** What a restatement costs (refresh without revalue: one supply read, no prices). 0 still settles, so it has its receipt. */
    refresh_price_micro_usd: MicroUsd(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    nav: Static<typeof NavSection>;
  }
}

export const navConfig: ConfigPart = {
  sections: { nav: { schema: NavSection, default: { calculate_price_micro_usd: 10_000, refresh_price_micro_usd: 0 } } },
  env: [
    { name: "SVC_NAV_CALCULATE_PRICE_MICRO_USD", path: "nav.calculate_price_micro_usd", type: "integer" },
    { name: "SVC_NAV_REFRESH_PRICE_MICRO_USD", path: "nav.refresh_price_micro_usd", type: "integer" },
  ],
};
