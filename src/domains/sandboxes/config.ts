/**
 * The sandboxes area's svc.toml sections: sandboxes.* (where runs execute, what they cost, how
 * long they and sessions may last, where workspaces live) and terminal.* (the keyless
 * POST /v1/terminal/run). docs/configuration.md lists every key; docs/sandboxes.md explains them.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";
import { MAX_LIMITS, MIN_LIMITS } from "./runner/index.ts";

const Secs = (minimum: number, maximum: number) => T.Integer({ minimum, maximum });

export const SandboxesSection = T.Object(
  {
    /** Run sandboxes on the gateway itself; false: every execution goes to fleet nodes. */
    local: T.Boolean(),
    /** Where session workspaces, snapshots and the runner's scratch live; empty: <data dir>/sandboxes (relative: to the data dir). */
    dir: T.String({ maxLength: 4096 }),
    /** Price of execution time, per second of wall time (billed per millisecond, rounded up). */
    price_micro_usd_per_second: MicroUsd(),
    /** Per-language prices, replacing price_micro_usd_per_second for runs of that language. */
    language_price_micro_usd_per_second: T.Object(
      { python: T.Optional(MicroUsd()), javascript: T.Optional(MicroUsd()), bash: T.Optional(MicroUsd()) },
      { additionalProperties: false },
    ),
    /** Price of a session being alive (between execs too), per second; 0: alive time is free. */
    session_price_micro_usd_per_second: MicroUsd(),
    /** Alive time is reserved one period ahead and settled at the period's end. */
    session_billing_period_secs: Secs(10, 3600),
    default_timeout_ms: T.Integer({ minimum: 100, maximum: MAX_LIMITS.timeoutMs }),
    max_timeout_ms: T.Integer({ minimum: 100, maximum: MAX_LIMITS.timeoutMs }),
    session_idle_timeout_secs: Secs(10, 7 * 86_400),
    session_idle_timeout_max_secs: Secs(10, 7 * 86_400),
    session_lifetime_secs: Secs(60, 30 * 86_400),
    session_lifetime_max_secs: Secs(60, 30 * 86_400),
    /** Live sessions one account may hold at once. */
    max_sessions_per_account: T.Integer({ minimum: 1, maximum: 10_000 }),
    /** Snapshots one account may keep. */
    max_snapshots_per_account: T.Integer({ minimum: 0, maximum: 10_000 }),
    /** Size of a session's workspace (a tmpfs of this size on a root gateway: memory). */
    workspace_quota_bytes: T.Integer({ minimum: MIN_LIMITS.workspaceBytes, maximum: MAX_LIMITS.workspaceBytes }),
  },
  { additionalProperties: false },
);

export const TerminalSection = T.Object(
  {
    /** POST /v1/terminal/run answers 404 with an empty body while false. */
    enabled: T.Boolean(),
    /** What all terminal runs together may cost per UTC day, at the sandbox price (the operator pays). */
    daily_budget_micro_usd: MicroUsd(),
    per_ip_per_minute: T.Integer({ minimum: 1, maximum: 10_000 }),
    /** The longest a terminal run may take. */
    max_timeout_ms: T.Integer({ minimum: 100, maximum: 60_000 }),
  },
  { additionalProperties: false },
);

export type SandboxesConfig = Static<typeof SandboxesSection>;
export type TerminalConfig = Static<typeof TerminalSection>;

declare module "../../config.ts" {
  interface DomainConfig {
    sandboxes: SandboxesConfig;
    terminal: TerminalConfig;
  }
}

export const SANDBOXES_DEFAULTS: SandboxesConfig = {
  local: true,
  dir: "",
  // $0.36 per hour of execution: a fresh setup runs sandboxes without any pricing step.
  price_micro_usd_per_second: 100,
  language_price_micro_usd_per_second: {},
  session_price_micro_usd_per_second: 10,
  session_billing_period_secs: 60,
  default_timeout_ms: 10_000,
  max_timeout_ms: 300_000,
  session_idle_timeout_secs: 600,
  session_idle_timeout_max_secs: 86_400,
  session_lifetime_secs: 3600,
  session_lifetime_max_secs: 86_400,
  max_sessions_per_account: 10,
  max_snapshots_per_account: 50,
  workspace_quota_bytes: 256 * 1024 * 1024,
};

export const sandboxesConfig: ConfigPart = {
  sections: {
    sandboxes: { schema: SandboxesSection, default: SANDBOXES_DEFAULTS },
    terminal: { schema: TerminalSection, default: { enabled: false, daily_budget_micro_usd: 1_000_000, per_ip_per_minute: 10, max_timeout_ms: 5000 } },
  },
  env: [
    { name: "SVC_SANDBOXES_LOCAL", path: "sandboxes.local", type: "boolean" },
    { name: "SVC_SANDBOXES_DIR", path: "sandboxes.dir", type: "string" },
    { name: "SVC_TERMINAL_ENABLED", path: "terminal.enabled", type: "boolean" },
  ],
  check(config: Config) {
    const s = config.sandboxes;
    const pairs: [string, number, string, number][] = [
      ["default_timeout_ms", s.default_timeout_ms, "max_timeout_ms", s.max_timeout_ms],
      ["session_idle_timeout_secs", s.session_idle_timeout_secs, "session_idle_timeout_max_secs", s.session_idle_timeout_max_secs],
      ["session_lifetime_secs", s.session_lifetime_secs, "session_lifetime_max_secs", s.session_lifetime_max_secs],
    ];
    for (const [name, value, maxName, max] of pairs) {
      if (value > max) throw new ConfigError(`sandboxes.${name} (${value}) is above sandboxes.${maxName} (${max})`);
    }
  },
};
