/**
 * The sandbox posture block of GET /v1/status (spec §4.1: "sandbox posture blocks when
 * configured"), as a TypeBox schema the status area puts in its response model: whether the
 * gateway runs sandboxes, and what its runner can do — isolation, cgroups, rlimits verified,
 * languages with versions, limits. Nothing of the host beyond that (no paths).
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;
const Numbers = t.Record(t.String(), Int({ minimum: 0 }));

const RunnerPosture = t.Object(
  {
    available: t.Boolean(),
    reason: Nullable(t.String()),
    bwrap_version: Nullable(t.String()),
    isolation: t.Object(
      {
        namespaces: t.Array(t.String()),
        uid_mode: t.Union([t.Literal("setpriv"), t.Literal("userns")]),
        sandbox_uid: Int({ minimum: 0 }),
        host_uid: Int({ minimum: 0 }),
        network: t.Literal("none"),
      },
      closed,
    ),
    cgroups: t.Object({ version: Nullable(t.Union([t.Literal("v1"), t.Literal("v2")])), memory: t.Boolean(), pids: t.Boolean(), note: t.String() }, closed),
    rlimits: t.Object(
      { cpu: t.Boolean(), address_space: t.Boolean(), file_size: t.Boolean(), open_files: t.Boolean(), processes: t.Boolean(), verified: t.Boolean() },
      closed,
    ),
    workspace_quota: t.Union([t.Literal("tmpfs"), t.Literal("watch")]),
    languages: t.Array(
      t.Object({ name: t.String(), version: Nullable(t.String()), available: t.Boolean(), runtime: Nullable(t.String()), reason: Nullable(t.String()) }, closed),
    ),
    limits: t.Object({ defaults: Numbers, max: Numbers }, closed),
  },
  closed,
);

export const SandboxPostureSchema = t.Object(
  {
    local: t.Boolean({ description: "sandboxes.local: the gateway runs sandboxes itself" }),
    runner: Nullable(RunnerPosture),
    fleet: t.Boolean({ description: "fleet nodes can take runs" }),
  },
  { ...closed, description: "Sandboxes: the gateway runner's posture (null until it has started, or with sandboxes.local = false)" },
);
