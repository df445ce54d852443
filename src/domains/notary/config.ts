/** The notary's svc.toml section (notary.*; docs/notary.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const NotarySection = T.Object(
  {
    /** What one notary receipt costs. 0 (the default) still settles through the meter, so every registration gets its signed receipt. */
    receipt_price_micro_usd: MicroUsd(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    notary: Static<typeof NotarySection>;
  }
}

export const notaryConfig: ConfigPart = {
  sections: { notary: { schema: NotarySection, default: { receipt_price_micro_usd: 0 } } },
  env: [{ name: "SVC_NOTARY_RECEIPT_PRICE_MICRO_USD", path: "notary.receipt_price_micro_usd", type: "integer" }],
};
