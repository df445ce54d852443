/** GET /v1/status: recorded health and uptime (public). */
import { Elysia, t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { statusReport } from "./health.ts";

const Window = t.Object({
  ratio: Nullable(t.Number({ minimum: 0, maximum: 1 })),
  samples: Int(),
  healthy_samples: Int(),
  expected_samples: Int(),
  since: t.String({ format: "date-time" }),
});

const Status = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("unknown")]),
  version: t.String(),
  started_at: t.String({ format: "date-time" }),
  process_uptime_secs: Int(),
  sample_interval_secs: Int(),
  last_sample: Nullable(t.Object({ at: t.String({ format: "date-time" }), ok: t.Boolean(), problems: t.Array(t.String()) })),
  uptime: t.Object({ "24h": Window, "7d": Window, "30d": Window }),
  replication: t.Object({
    enabled: t.Boolean(),
    state: t.String({ description: "off, not_installed, starting, replicating, restarting or stopped" }),
    replica_kind: Nullable(t.String({ description: "file, s3, … (never the location)" })),
    last_sync_at: Nullable(t.String({ format: "date-time" })),
    lag_seconds: Nullable(t.Number({ minimum: 0 })),
    restarts: Int({ minimum: 0 }),
  }),
});

export function statusRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1" })
    .use(guards.public(ctx))
    .get("/status", () => statusReport(ctx), { response: Status, detail: { summary: "Recorded health and uptime", tags: ["status"] } });
}
