/** API keys' svc.toml section (keys.*): rotation grace, the default circuit breaker, delegation depth. */
import { type Static, Type as T } from "@sinclair/typebox";
import { MicroUsd } from "../../core/schemas.ts";
import type { ConfigPart } from "../../config.ts";

export const KeysSection = T.Object(
  {
    /** A rotated key keeps working (as its replacement) this long. */
    rotation_grace_secs: T.Integer({ minimum: 0 }),
    /** Default circuit breaker: spend per rolling minute above this freezes a key; 0 = off. */
    breaker_micro_usd_per_minute: MicroUsd(),
    /** How many levels of delegated keys may hang below a key minted by a person. */
    max_delegation_depth: T.Integer({ minimum: 0, maximum: 16 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    keys: Static<typeof KeysSection>;
  }
}

export const keysConfig: ConfigPart = {
  sections: { keys: { schema: KeysSection, default: { rotation_grace_secs: 86_400, breaker_micro_usd_per_minute: 5_000_000, max_delegation_depth: 4 } } },
};
