/** Health sampling's svc.toml section (health.*): how often a sample is taken and how long samples are kept. */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const HealthSection = T.Object(
  {
    sample_interval_secs: T.Integer({ minimum: 1 }),
    retention_days: T.Integer({ minimum: 1 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    health: Static<typeof HealthSection>;
  }
}

export const statusConfig: ConfigPart = {
  sections: { health: { schema: HealthSection, default: { sample_interval_secs: 60, retention_days: 90 } } },
};
