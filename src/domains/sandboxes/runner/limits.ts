/**
 * The resource limits of one sandbox run: what each one caps, the defaults, the ceilings a
 * caller may not exceed, and the checks on a caller's overrides. The runner enforces every
 * one of them (see docs/sandboxes-isolation.md for which kernel mechanism backs which).
 */
import { InvalidRunSpecError } from "./errors.ts";

export interface Limits {
  /** Wall-clock time from start to kill of the whole sandbox tree. */
  timeoutMs: number;
  /** CPU time per process (RLIMIT_CPU, whole seconds, rounded up). */
  cpuMs: number;
  /** Memory of the whole run (cgroup), and the address-space fallback per process. */
  memoryBytes: number;
  /** Processes and threads of the run (pids cgroup, and RLIMIT_NPROC inside). */
  processes: number;
  /** Largest file any process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** Everything stored in /workspace. */
  workspaceBytes: number;
  /** Each of the private /tmp and /dev/shm. */
  tmpBytes: number;
  /** Open file descriptors per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Bytes of stdout kept; the run is killed when it writes more. */
  stdoutBytes: number;
  /** Bytes of stderr kept; the run is killed when it writes more. */
  stderrBytes: number;
}

export type LimitName = keyof Limits;

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  timeoutMs: 10_000,
  cpuMs: 10_000,
  memoryBytes: 256 * MiB,
  processes: 64,
  fileSizeBytes: 64 * MiB,
  workspaceBytes: 256 * MiB,
  tmpBytes: 64 * MiB,
  openFiles: 256,
  stdoutBytes: 1 * MiB,
  stderrBytes: 1 * MiB,
});

export const MAX_LIMITS: Readonly<Limits> = Object.freeze({
  timeoutMs: 15 * 60_000,
  cpuMs: 15 * 60_000,
  memoryBytes: 4096 * MiB,
  processes: 1024,
  fileSizeBytes: 1024 * MiB,
  workspaceBytes: 2048 * MiB,
  tmpBytes: 1024 * MiB,
  openFiles: 4096,
  stdoutBytes: 16 * MiB,
  stderrBytes: 16 * MiB,
});

/**
 * Below these a run cannot even start its interpreter (the preludes and bwrap itself need a
 * few processes, descriptors and megabytes), so smaller values are refused rather than turned
 * into confusing failures.
 */
export const MIN_LIMITS: Readonly<Limits> = Object.freeze({
  timeoutMs: 1,
  cpuMs: 1,
  memoryBytes: 16 * MiB,
  processes: 8,
  fileSizeBytes: 4096,
  workspaceBytes: 1 * MiB,
  tmpBytes: 1 * MiB,
  openFiles: 32,
  stdoutBytes: 1,
  stderrBytes: 1,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as LimitName[];

/** The snake_case names the limits carry in JSON (posture, API bodies). */
export const LIMIT_JSON_NAMES: Record<LimitName, string> = {
  timeoutMs: "timeout_ms",
  cpuMs: "cpu_ms",
  memoryBytes: "memory_bytes",
  processes: "processes",
  fileSizeBytes: "file_size_bytes",
  workspaceBytes: "workspace_bytes",
  tmpBytes: "tmp_bytes",
  openFiles: "open_files",
  stdoutBytes: "stdout_bytes",
  stderrBytes: "stderr_bytes",
};

export function limitsJson(limits: Limits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of LIMIT_NAMES) out[LIMIT_JSON_NAMES[name]] = limits[name];
  return out;
}

/**
 * Fills `overrides` from `defaults` and refuses (never clamps) values outside
 * [MIN_LIMITS, max]: a caller asking for 10 GiB should learn it did not get it.
 * `param` prefixes the field name in the error (e.g. "limits").
 */
export function resolveLimits(defaults: Limits, max: Limits, overrides: Partial<Limits> | undefined, param = "limits"): Limits {
  const out: Limits = { ...defaults };
  if (overrides === undefined) return out;
  if (typeof overrides !== "object" || overrides === null) throw new InvalidRunSpecError(param, "must be an object");
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(LIMIT_NAMES as string[]).includes(key)) throw new InvalidRunSpecError(`${param}.${key}`, "is not a known limit");
    const name = key as LimitName;
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      throw new InvalidRunSpecError(`${param}.${key}`, "must be an integer");
    }
    if (value < MIN_LIMITS[name] || value > max[name]) {
      throw new InvalidRunSpecError(`${param}.${key}`, `must be between ${MIN_LIMITS[name]} and ${max[name]}`);
    }
    out[name] = value;
  }
  return out;
}

/** Checks a whole limits object given to createRunner (defaults and ceilings). */
export function checkLimitsObject(limits: Limits, param: string): void {
  for (const name of LIMIT_NAMES) {
    const value = limits[name];
    if (!Number.isSafeInteger(value) || value < MIN_LIMITS[name]) {
      throw new InvalidRunSpecError(`${param}.${name}`, `must be an integer of at least ${MIN_LIMITS[name]}`);
    }
  }
}
