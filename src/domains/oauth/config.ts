/** The OAuth area's svc.toml section (oauth.*; docs/oauth.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const OAuthSection = T.Object(
  {
    /** How long an access token works (seconds). */
    access_token_ttl_secs: T.Integer({ minimum: 60, maximum: 86_400 }),
    /** How long a refresh token works if unused (seconds); each use rotates it. */
    refresh_token_ttl_secs: T.Integer({ minimum: 3600, maximum: 365 * 86_400 }),
    /** How long a person has to approve an authorization request, and a client to exchange its code (seconds). */
    authorization_ttl_secs: T.Integer({ minimum: 60, maximum: 3600 }),
    /** Accept an https URL as client_id and fetch its Client ID Metadata Document (through the outbound guard). */
    client_metadata_documents: T.Boolean(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    oauth: Static<typeof OAuthSection>;
  }
}

export const oauthConfig: ConfigPart = {
  sections: {
    oauth: {
      schema: OAuthSection,
      default: { access_token_ttl_secs: 3600, refresh_token_ttl_secs: 30 * 86_400, authorization_ttl_secs: 600, client_metadata_documents: true },
    },
  },
};
