/**
 * The one response of GET /metrics: Prometheus text exposition format 0.0.4 (what prom-client's
 * registry serves: `text/plain; version=0.0.4; charset=utf-8`). It is not JSON, so it is declared
 * as an OpenAPI response object with its own media type rather than through a response schema
 * (the generator would name it plain `text/plain`).
 */
import type { DocumentDecoration } from "elysia";

export const PROMETHEUS_MEDIA_TYPE = "text/plain; version=0.0.4";

export const MetricsResponses: NonNullable<DocumentDecoration["responses"]> = {
  200: {
    description: "Prometheus text exposition (0.0.4): aggregate gauges and request counters, nothing per account",
    content: { [PROMETHEUS_MEDIA_TYPE]: { schema: { type: "string" } } },
  },
};
