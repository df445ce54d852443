/** GET /metrics' svc.toml section: its bearer token, kept only as sha256 (SVC_METRICS_TOKEN carries the plaintext). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const MetricsSection = T.Object({ token_sha256: T.Union([T.String({ pattern: "^[0-9a-f]{64}$" }), T.Null()]) }, { additionalProperties: false });

declare module "../../config.ts" {
  interface DomainConfig {
    metrics: Static<typeof MetricsSection>;
  }
}

export const metricsConfig: ConfigPart = {
  sections: { metrics: { schema: MetricsSection, default: { token_sha256: null } } },
  env: [{ name: "SVC_METRICS_TOKEN", path: "metrics.token_sha256", type: "sha256" }],
};
