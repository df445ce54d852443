/** The support program's svc.toml section (support.*; docs/support.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const SupportSection = T.Object(
  {
    /** How long a nonce from POST /v1/support/nonce may be used; long enough to sign with two wallets and wait for the transaction's confirmations. */
    nonce_ttl_secs: T.Integer({ minimum: 60, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    support: Static<typeof SupportSection>;
  }
}

export const supportConfig: ConfigPart = {
  sections: { support: { schema: SupportSection, default: { nonce_ttl_secs: 900 } } },
  env: [{ name: "SVC_SUPPORT_NONCE_TTL_SECS", path: "support.nonce_ttl_secs", type: "integer" }],
};
