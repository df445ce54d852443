/** TypeBox model of GET /v1/status: recorded health, uptime per window and the replication posture (closed objects). */
import { t } from "elysia";
import { ConfidentialPostureSchema } from "../confidential/index.ts";
import { SandboxPostureSchema } from "../sandboxes/index.ts";
import { Int, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const Window = t.Object(
  {
    ratio: Nullable(t.Number({ minimum: 0, maximum: 1, description: "healthy ÷ expected samples (six decimals); null before the first sample" })),
    samples: Int({ minimum: 0 }),
    healthy_samples: Int({ minimum: 0 }),
    expected_samples: Int({ minimum: 0 }),
    since: Time,
  },
  closed,
);

/** The backup area's ReplicationState: health.ts types the view with it, so a state added there and not here fails to compile at the route. */
const ReplicationStateSchema = t.Union([
  t.Literal("off"),
  t.Literal("not_installed"),
  t.Literal("starting"),
  t.Literal("replicating"),
  t.Literal("restarting"),
  t.Literal("stopped"),
], { description: "off, not_installed, starting, replicating, restarting or stopped" });

export const Status = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("unknown")], { description: "unknown before the first health sample" }),
    version: t.String(),
    started_at: Time,
    process_uptime_secs: Int({ minimum: 0 }),
    sample_interval_secs: Int({ minimum: 1 }),
    last_sample: Nullable(t.Object({ at: Time, ok: t.Boolean(), problems: t.Array(t.String()) }, closed)),
    uptime: t.Object({ "24h": Window, "7d": Window, "30d": Window }, closed),
    replication: t.Object(
      {
        enabled: t.Boolean(),
        state: ReplicationStateSchema,
        replica_kind: Nullable(t.String({ description: "file, s3, … (never the location)" })),
        last_sync_at: Nullable(Time),
        lag_seconds: Nullable(t.Number({ minimum: 0 })),
        restarts: Int({ minimum: 0 }),
      },
      closed,
    ),
    sandboxes: SandboxPostureSchema,
    confidential: t.Optional(ConfidentialPostureSchema),
  },
  closed,
);
