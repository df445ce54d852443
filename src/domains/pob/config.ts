/** The proof-of-backing area's svc.toml section (pob.*; docs/pob.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";
import { MAX_INTERVAL_SECS } from "./limits.ts";

export const PobSection = T.Object(
  {
    /** The shortest interval_s a subject may ask for: every check is an outbound request and a kept, signed record. */
    min_interval_secs: T.Integer({ minimum: 10, maximum: MAX_INTERVAL_SECS }),
    /** interval_s when a subject names none. */
    default_interval_secs: T.Integer({ minimum: 10, maximum: MAX_INTERVAL_SECS }),
    /** Active (not retired) subjects one account may have. */
    max_active_subjects: T.Integer({ minimum: 1, maximum: 10_000 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    pob: Static<typeof PobSection>;
  }
}

export const pobConfig: ConfigPart = {
  sections: { pob: { schema: PobSection, default: { min_interval_secs: 60, default_interval_secs: 3600, max_active_subjects: 50 } } },
  env: [{ name: "SVC_POB_MIN_INTERVAL_SECS", path: "pob.min_interval_secs", type: "integer" }],
  check(config) {
    if (config.pob.default_interval_secs < config.pob.min_interval_secs) {
      throw new ConfigError(`pob.default_interval_secs (${config.pob.default_interval_secs}) must be at least pob.min_interval_secs (${config.pob.min_interval_secs})`);
    }
  },
};
