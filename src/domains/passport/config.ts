/** The passport area's svc.toml section (passport.*; docs/passport.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const PassportSection = T.Object(
  {
    /**
     * How often the credentials issued since the last pass are gathered under one Merkle root
     * and anchored. One root per interval rather than per mint, so an evm anchor costs one
     * transaction however many passports it covers.
     */
    anchor_interval_secs: T.Integer({ minimum: 1, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    passport: Static<typeof PassportSection>;
  }
}

export const passportConfig: ConfigPart = {
  sections: { passport: { schema: PassportSection, default: { anchor_interval_secs: 60 } } },
  env: [],
};
