/** Outbound webhooks' svc.toml section (webhooks.*; docs/webhooks.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const WebhooksSection = T.Object(
  {
    /** An attempt that has not answered within this long is a failed attempt. */
    timeout_secs: T.Integer({ minimum: 1, maximum: 120 }),
    /** Allow targets on private, loopback, link-local and other non-public addresses (tests, private deployments). */
    allow_private: T.Boolean(),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    webhooks: Static<typeof WebhooksSection>;
  }
}

export const webhooksConfig: ConfigPart = {
  sections: { webhooks: { schema: WebhooksSection, default: { timeout_secs: 15, allow_private: false } } },
  env: [{ name: "SVC_ALLOW_PRIVATE_WEBHOOKS", path: "webhooks.allow_private", type: "boolean" }],
};
