/** The admin group's svc.toml section: its bearer token, kept only as sha256 (SVC_ADMIN_TOKEN carries the plaintext). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

/** Lowercase hex, as the loader stores digests. */
const Sha256 = T.String({ pattern: "^[0-9a-f]{64}$" });

export const AdminSection = T.Object({ token_sha256: T.Union([Sha256, T.Null()]) }, { additionalProperties: false });

declare module "../../config.ts" {
  interface DomainConfig {
    admin: Static<typeof AdminSection>;
  }
}

export const adminConfig: ConfigPart = {
  sections: { admin: { schema: AdminSection, default: { token_sha256: null } } },
  env: [{ name: "SVC_ADMIN_TOKEN", path: "admin.token_sha256", type: "sha256" }],
};
