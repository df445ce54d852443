/**
 * The runner's public shapes: what a caller asks for (RunSpec), what it gets back (RunResult),
 * how a runner is set up (RunnerOptions) and what it can do on this host (Posture, for
 * GET /v1/status). JSON-facing results use snake_case like the rest of the API.
 */
import type { Limits } from "./limits.ts";
import type { LanguageName } from "./languages.ts";
import type { QuotaMode } from "./workspaces.ts";

export interface RunSpec {
  /** The interpreter for `code`. With `command` it only picks the address-space allowance. */
  language?: LanguageName;
  /** Program text, run from a read-only file outside the workspace. */
  code?: string;
  /** Or an argv run as is (looked up on the sandbox's PATH), e.g. ["sh", "-c", "ls -la"]. */
  command?: string[];
  /** Arguments after the program file (with `code`). */
  args?: string[];
  stdin?: string | Uint8Array;
  env?: Record<string, string>;
  /** Files to put in the workspace first: relative path -> UTF-8 content. */
  files?: Record<string, string>;
  /** Shorthand for limits.timeoutMs. */
  timeoutMs?: number;
  /**
   * A session's workspace (an existing directory, bound read-write at /workspace). Without
   * one the run gets a private tmpfs workspace of limits.workspaceBytes that vanishes after.
   */
  workspaceDir?: string;
  limits?: Partial<Limits>;
}

export interface RunIO {
  onStdout?(chunk: Uint8Array): void;
  onStderr?(chunk: Uint8Array): void;
  /** Aborting kills the run; its result then has status "killed", killed_reason "aborted". */
  signal?: AbortSignal;
}

export type RunStatus = "ok" | "error" | "timeout" | "killed" | "runner_error";

export type KilledReason = "timeout" | "output_limit" | "memory_limit" | "cpu_limit" | "workspace_quota" | "aborted";

export interface RunResult {
  /**
   * ok: exited 0. error: the program failed (non-zero exit, or died of a signal it brought on
   * itself). timeout: wall time ran out. killed: the runner stopped it for a limit (see
   * killed_reason). runner_error: the sandbox itself could not run (the gateway's failure,
   * reported as sandbox_failed; not the program's).
   */
  status: RunStatus;
  exit_code: number | null;
  /** The signal that ended the program, when one did (e.g. "SIGKILL"). */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  timed_out: boolean;
  killed_reason: KilledReason | null;
  duration_ms: number;
  /** CPU time of all the sandbox's processes (user + system) from the run's cgroup; null without one. */
  cpu_ms: number | null;
  /** Peak memory charged to the run's memory cgroup; null without one. */
  memory_peak_bytes: number | null;
  oom_killed: boolean;
  /** Only for runner_error: what went wrong. */
  error: string | null;
}

export interface RunnerOptions {
  /** Where session workspaces are created (createWorkspace). Made if missing. */
  workspaceRoot: string;
  /** The runner's private scratch dir (0700). Default: a new dir under the system temp dir. */
  stagingDir?: string;
  defaults?: Partial<Limits>;
  /** Ceilings for per-run overrides. */
  max?: Partial<Limits>;
  /** bubblewrap binary. Default: bwrap on PATH. */
  bwrapPath?: string;
  /** Bun runtime for JavaScript. Default: this executable (compiled) or the running bun. */
  bunPath?: string;
  /**
   * uid/gid of programs inside the sandbox, and on the host when the gateway is root (it then
   * drops to them before starting bwrap). Default 65534 (nobody).
   */
  uid?: number;
  gid?: number;
  /**
   * "auto": per-run cgroups where this host allows them. "off": rlimits only (what a host
   * without delegated cgroups gets; also how the fallback is tested on a host with them).
   */
  cgroups?: "auto" | "off";
  /**
   * Shells kept waiting inside fresh per-run cgroups, so a run does not wait for the kernel
   * to move a process into one (launchers.ts). Default 4; 0 turns them off.
   */
  warmLaunchers?: number;
  /** "auto": tmpfs workspaces when the gateway may mount, else "watch". */
  workspaceQuota?: "auto" | QuotaMode;
  /** How often a plain-directory workspace is measured during a run. */
  quotaWatchIntervalMs?: number;
}

export interface LanguagePosture {
  name: LanguageName;
  version: string | null;
  available: boolean;
  runtime: string | null;
  reason: string | null;
}

export interface Posture {
  available: boolean;
  /** Why not, when not available. */
  reason: string | null;
  bwrap_version: string | null;
  isolation: {
    namespaces: string[];
    /** How the program's uid comes about: "setpriv" (root gateway drops first) or "userns" (unprivileged gateway). */
    uid_mode: "setpriv" | "userns";
    sandbox_uid: number;
    host_uid: number;
    network: "none";
  };
  cgroups: {
    version: "v1" | "v2" | null;
    memory: boolean;
    pids: boolean;
    note: string;
  };
  rlimits: {
    cpu: boolean;
    address_space: boolean;
    file_size: boolean;
    open_files: boolean;
    processes: boolean;
    /** True when a sandbox at start reported every limit as set (from its own /proc/self/limits). */
    verified: boolean;
  };
  workspace_quota: QuotaMode;
  languages: LanguagePosture[];
  limits: {
    defaults: Record<string, number>;
    max: Record<string, number>;
  };
}
