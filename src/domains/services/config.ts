/** The services area's svc.toml section (services.*; docs/services.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const ServicesSection = T.Object(
  {
    /** One call's whole budget (upstream or model handler); slower is a failed call and the buyer's payment is released. */
    call_timeout_ms: T.Integer({ minimum: 100, maximum: 300_000 }),
    /** Largest upstream answer passed back to the buyer; a larger one fails the call. */
    max_response_bytes: T.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    services: Static<typeof ServicesSection>;
  }
}

export const servicesConfig: ConfigPart = {
  sections: { services: { schema: ServicesSection, default: { call_timeout_ms: 30_000, max_response_bytes: 1024 * 1024 } } },
  env: [{ name: "SVC_SERVICES_CALL_TIMEOUT_MS", path: "services.call_timeout_ms", type: "integer" }],
};
