/** The vault area's svc.toml section (vault.*; docs/vault.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const VaultSection = T.Object(
  {
    /**
     * How often the chain entries appended since the last pass are gathered under one Merkle
     * root and anchored (anchors area). One root per interval for every asset's entries, so an
     * evm anchor costs one transaction however many changes it covers.
     */
    anchor_interval_secs: T.Integer({ minimum: 1, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    vault: Static<typeof VaultSection>;
  }
}

export const vaultConfig: ConfigPart = {
  sections: { vault: { schema: VaultSection, default: { anchor_interval_secs: 60 } } },
  env: [],
};
