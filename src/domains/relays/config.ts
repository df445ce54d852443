/** The relays area's svc.toml section (relays.*; docs/relays.md "Configuration"). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";

const DAY_SECS = 86_400;

export const RelaysSection = T.Object(
  {
    /** Decoded bytes of all the objects of one relay (413 relay_too_large beyond). */
    max_relay_bytes: T.Integer({ minimum: 1024, maximum: 256 * 1024 * 1024 }),
    /** Bytes one account may hold in relays whose content is live (409 relay_storage_full beyond). */
    max_stored_bytes_per_account: T.Integer({ minimum: 1024, maximum: Number.MAX_SAFE_INTEGER }),
    /** A relay's life when the request names neither expires_at nor ttl_secs. */
    default_ttl_secs: T.Integer({ minimum: 60, maximum: 365 * DAY_SECS }),
    /** The longest life a relay may ask for. */
    max_ttl_secs: T.Integer({ minimum: 60, maximum: 365 * DAY_SECS }),
    /** How long an access token (from opening a relay) fetches its objects without spending another access. */
    access_window_secs: T.Integer({ minimum: 10, maximum: DAY_SECS }),
    /** Relay-access requests per minute per client address (on top of the public routes' own limit); 0: none. */
    access_per_ip_per_minute: T.Integer({ minimum: 0, maximum: 100_000 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    relays: Static<typeof RelaysSection>;
  }
}

export const relaysConfig: ConfigPart = {
  sections: {
    relays: {
      schema: RelaysSection,
      default: {
        max_relay_bytes: 10 * 1024 * 1024,
        max_stored_bytes_per_account: 100 * 1024 * 1024,
        default_ttl_secs: 7 * DAY_SECS,
        max_ttl_secs: 30 * DAY_SECS,
        access_window_secs: 600,
        access_per_ip_per_minute: 30,
      },
    },
  },
  env: [{ name: "SVC_RELAYS_MAX_RELAY_BYTES", path: "relays.max_relay_bytes", type: "integer" }],
  check(config) {
    const r = config.relays;
    if (r.default_ttl_secs > r.max_ttl_secs) throw new ConfigError(`relays.default_ttl_secs (${r.default_ttl_secs}) must not exceed relays.max_ttl_secs (${r.max_ttl_secs})`);
    if (r.max_relay_bytes > r.max_stored_bytes_per_account) {
      throw new ConfigError(`relays.max_relay_bytes (${r.max_relay_bytes}) must not exceed relays.max_stored_bytes_per_account (${r.max_stored_bytes_per_account})`);
    }
  },
};
