/** The legacy area's svc.toml section (legacy.*; docs/legacy.md "Configuration"). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";
import { MAX_HOLD_S, MIN_HOLD_S } from "./limits.ts";

const DAY_SECS = 86_400;

export const LegacySection = T.Object(
  {
    /** Plans one account may hold that are not yet claimed or cancelled (409 legacy_plan_limit beyond). */
    max_active_plans: T.Integer({ minimum: 1, maximum: 10_000 }),
    /** Decoded bytes of one plan's content, all objects together (413 legacy_content_too_large beyond). */
    max_content_bytes: T.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 }),
    /** With attesters: how long past the warning a release waits for their confirmations when a plan names no max_hold_s. */
    default_max_hold_secs: T.Integer({ minimum: MIN_HOLD_S, maximum: MAX_HOLD_S }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    legacy: Static<typeof LegacySection>;
  }
}

/** Room for the JSON around the base64 content of a PUT /v1/legacy/plans/:id/content. */
const JSON_MARGIN_BYTES = 64 * 1024;

export const legacyConfig: ConfigPart = {
  sections: {
    legacy: {
      schema: LegacySection,
      default: { max_active_plans: 10, max_content_bytes: 1024 * 1024, default_max_hold_secs: 30 * DAY_SECS },
    },
  },
  env: [
    { name: "SVC_LEGACY_MAX_ACTIVE_PLANS", path: "legacy.max_active_plans", type: "integer" },
    { name: "SVC_LEGACY_MAX_CONTENT_BYTES", path: "legacy.max_content_bytes", type: "integer" },
  ],
  check(config) {
    // The content route has a parameter in its path, so it cannot take a larger body limit (bodyLimits is by exact path).
    const needed = Math.ceil((config.legacy.max_content_bytes * 4) / 3) + JSON_MARGIN_BYTES;
    if (needed > config.max_body_bytes) {
      throw new ConfigError(`legacy.max_content_bytes (${config.legacy.max_content_bytes}) needs max_body_bytes of at least ${needed} (content comes base64 in JSON); raise max_body_bytes or lower it`);
    }
  },
};
