/** Sign-in's svc.toml sections: sessions and SIWE (auth.*), passkeys (passkeys.*; empty = off). */
import { type Static, Type as T } from "@sinclair/typebox";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";

export const AuthSection = T.Object(
  {
    /** A session unused for this long expires (each use slides it forward)… */
    session_idle_secs: T.Integer({ minimum: 60 }),
    /** …and none lives longer than this, used or not. */
    session_max_secs: T.Integer({ minimum: 60 }),
    /** Chain ids a SIWE message may name. */
    siwe_chain_ids: T.Array(T.Integer({ minimum: 1 }), { minItems: 1 }),
    /** A SIWE message issued longer ago than this is refused. */
    siwe_max_age_secs: T.Integer({ minimum: 10 }),
  },
  { additionalProperties: false },
);

export const PasskeysSection = T.Object(
  {
    /** WebAuthn relying party id (a registrable domain, e.g. example.com); empty = passkeys off (404). */
    rp_id: T.String(),
    rp_name: T.String({ minLength: 1 }),
    /** Origin browsers sign for, e.g. https://app.example.com; empty = passkeys off. */
    origin: T.String(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    auth: Static<typeof AuthSection>;
    passkeys: Static<typeof PasskeysSection>;
  }
}

/** Passkeys are mounted only when both the relying party id and the origin are configured. */
export const passkeysEnabled = (config: Config): boolean => Boolean(config.passkeys.rp_id && config.passkeys.origin);

export const authConfig: ConfigPart = {
  sections: {
    auth: { schema: AuthSection, default: { session_idle_secs: 7 * 86_400, session_max_secs: 30 * 86_400, siwe_chain_ids: [1], siwe_max_age_secs: 600 } },
    passkeys: { schema: PasskeysSection, default: { rp_id: "", rp_name: "svc", origin: "" } },
  },
  env: [
    { name: "SVC_PASSKEY_RP_ID", path: "passkeys.rp_id", type: "string" },
    { name: "SVC_PASSKEY_ORIGIN", path: "passkeys.origin", type: "string" },
  ],
  check(config: Config) {
    const pk = config.passkeys;
    if (Boolean(pk.rp_id) !== Boolean(pk.origin)) throw new ConfigError("passkeys: set both rp_id and origin (or neither, to turn passkeys off)");
    if (pk.origin && !/^https?:\/\/[^/\s]+$/.test(pk.origin)) throw new ConfigError(`passkeys.origin: "${pk.origin}" must be scheme://host[:port] with no path`);
    if (config.auth.session_idle_secs > config.auth.session_max_secs) throw new ConfigError("auth.session_idle_secs must not exceed auth.session_max_secs");
  },
};
