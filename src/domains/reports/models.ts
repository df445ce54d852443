/** TypeBox models of POST /v1/reports/sla: an optional window in, aggregate figures out (closed objects). */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { INSTANT_PATTERN, TIME_ERROR } from "../usage/index.ts";
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS } from "./sla.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const BodyTime = (description: string) =>
  t.String({ maxLength: 40, pattern: INSTANT_PATTERN, error: TIME_ERROR, description: `${description}; RFC 3339 with a time zone` });

export const SlaBody = t.Optional(
  t.Object(
    {
      from: t.Optional(BodyTime(`start of the window, inclusive; default: ${DEFAULT_WINDOW_DAYS} days before \`to\`; at most ${MAX_WINDOW_DAYS} days before it`)),
      to: t.Optional(BodyTime("end of the window, exclusive; default: now; not in the future")),
    },
    closed,
  ),
);

const Ratio = Nullable(t.Number({ minimum: 0, maximum: 1 }));
const Ms = Nullable(t.Number({ minimum: 0 }));
const Latency = t.Object({ p50: Ms, p95: Ms, p99: Ms, max: Ms }, { ...closed, description: "milliseconds; null without requests" });
const Figures = {
  total: Int({ minimum: 0 }),
  errors_5xx: Int({ minimum: 0 }),
  error_rate: Nullable(t.Number({ minimum: 0, maximum: 1, description: "5xx ÷ total; null without requests" })),
  latency_ms: Latency,
};

export const SlaReport = t.Object(
  {
    from: Time,
    to: Time,
    generated_at: Time,
    availability: t.Object(
      {
        ratio: Ratio,
        healthy_samples: Int({ minimum: 0 }),
        samples: Int({ minimum: 0 }),
        expected_samples: Int({ minimum: 0 }),
        sample_interval_secs: Int({ minimum: 1 }),
        since: Nullable(t.String({ format: "date-time", description: "the first instant counted; null when no sample falls before `to`" })),
      },
      closed,
    ),
    requests: t.Object(
      {
        ...Figures,
        by_route: t.Array(
          t.Object({ method: t.String(), route: t.String({ description: "the route template (never a raw path), or unmatched" }), ...Figures }, closed),
          { description: "busiest first" },
        ),
      },
      closed,
    ),
    methodology: t.Object(
      {
        availability: t.String(),
        latency: t.String(),
        error_rate: t.String(),
        bucket_bounds_ms: t.Array(t.Number({ exclusiveMinimum: 0 })),
        request_resolution_secs: Int({ minimum: 1 }),
      },
      closed,
    ),
  },
  closed,
);
