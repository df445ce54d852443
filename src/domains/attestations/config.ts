/** The attestations area's svc.toml section (attestations.*; docs/attestations.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const AttestationsSection = T.Object(
  {
    /**
     * What one check (POST /v1/attestations/check or …/refresh) costs, whatever its outcome:
     * an UNAVAILABLE check did the same work as a VERIFIED one. 0 (the default) still settles
     * through the meter, so every version has its signed receipt.
     */
    check_price_micro_usd: MicroUsd(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    attestations: Static<typeof AttestationsSection>;
  }
}

export const attestationsConfig: ConfigPart = {
  sections: { attestations: { schema: AttestationsSection, default: { check_price_micro_usd: 0 } } },
  env: [{ name: "SVC_ATTESTATIONS_CHECK_PRICE_MICRO_USD", path: "attestations.check_price_micro_usd", type: "integer" }],
};
