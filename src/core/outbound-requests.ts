/**
 * How many HTTP requests `svc serve` may have in flight to other hosts at once.
 *
 * Bun's `fetch` sends at most BUN_CONFIG_MAX_HTTP_REQUESTS requests at a time (256 when unset)
 * and queues the rest, process-wide. For a gateway that is a ceiling on concurrent calls: every
 * streamed completion holds its upstream request for as long as the model writes (minutes),
 * and MCP calls and webhook deliveries share the same pool — the 257th agent's call would wait,
 * silently, for another one to finish. The runtime reads the variable once, at start; setting it
 * from JavaScript afterwards changes nothing. So `svc serve` starts over as itself (execve: same
 * PID, same arguments; Bun's execve keeps only descriptors 0–2, and nothing else is open yet)
 * with the variable set, before any of its modules load.
 *
 * An operator who sets BUN_CONFIG_MAX_HTTP_REQUESTS keeps their value: svc only fills it in (an
 * empty value counts as unset, as a cleared systemd Environment= line would leave it).
 * The default follows the open-files limit: each outbound request holds a socket and the
 * inbound request it serves holds another, and the database, the log and sandboxes need some.
 *
 * Imports next to nothing (compiled.ts, which imports nothing): cli/main.ts calls it before it
 * loads the rest of the program.
 */
import { isEmbeddedPath } from "./compiled.ts";

export const OUTBOUND_ENV = "BUN_CONFIG_MAX_HTTP_REQUESTS";
/** Bun's own default, and the fewest svc asks for. */
export const BUN_DEFAULT_OUTBOUND = 256;
/** Bun refuses more than this. */
export const BUN_MAX_OUTBOUND = 65_535;
/** Plenty for one process; more only grows the kernel's socket buffers for nothing. */
export const SVC_DEFAULT_OUTBOUND = 16_384;
/** Descriptors kept back for everything that is not a request pair. */
const RESERVED_DESCRIPTORS = 512;

/** The limit for a process whose hard open-files limit is `openFiles` (null: unknown). */
export function outboundLimitFor(openFiles: number | null): number {
  if (openFiles === null || !Number.isFinite(openFiles)) return SVC_DEFAULT_OUTBOUND;
  const pairs = Math.floor((openFiles - RESERVED_DESCRIPTORS) / 2);
  return Math.min(SVC_DEFAULT_OUTBOUND, BUN_MAX_OUTBOUND, Math.max(BUN_DEFAULT_OUTBOUND, pairs));
}

/** The hard "Max open files" from /proc/self/limits (Bun raises the soft limit to it at start). */
export function hardOpenFilesLimit(limits: string): number | null {
  const line = limits.split("\n").find((l) => l.startsWith("Max open files"));
  const hard = line?.trim().split(/\s+/)[4];
  if (hard === undefined) return null;
  if (hard === "unlimited") return Number.POSITIVE_INFINITY;
  const n = Number(hard);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * The argument vector that starts this same program again: a compiled binary's argv[1] is its
 * embedded entry (/$bunfs/...), which the binary adds by itself; from source, bun needs its own
 * flags (execArgv) and the script's path back.
 */
export function relaunchArgv(argv0: string, argv: readonly string[], execArgv: readonly string[]): string[] {
  return isEmbeddedPath(argv[1] ?? "") ? [argv0, ...argv.slice(2)] : [argv0, ...execArgv, ...argv.slice(1)];
}

interface Process {
  argv: string[];
  argv0: string;
  execArgv: string[];
  execPath: string;
  env: Record<string, string | undefined>;
  execve?: (file: string, args: string[], env: Record<string, string | undefined>) => never;
}

/**
 * For `serve` only: CLI commands, and a fleet node (which heartbeats and serves its gateway), send
 * a handful of requests. When the variable is unset, start over with it set. Returns when there
 * is nothing to do or the platform cannot execve (the server then runs with Bun's default).
 */
export function raiseOutboundLimit(proc: Process, readLimits: () => string): void {
  // argv[1] is the entry (compiled) or the script (from source): the command word follows it.
  if (proc.argv[2] !== "serve" || (proc.env[OUTBOUND_ENV] ?? "") !== "" || typeof proc.execve !== "function") return;
  let openFiles: number | null = null;
  try {
    openFiles = hardOpenFilesLimit(readLimits());
  } catch {
    // no /proc: the default stands
  }
  const env = { ...proc.env, [OUTBOUND_ENV]: String(outboundLimitFor(openFiles)) };
  try {
    proc.execve(proc.execPath, relaunchArgv(proc.argv0, proc.argv, proc.execArgv), env);
  } catch {
    // execve refused (seccomp, a read-only /proc/self/exe…): serve with the runtime's default
  }
}

/**
 * A value the way Bun reads it: a base-10 whole number from 1 to 65535 (a leading "+" and "_"
 * between digits allowed, as Zig's parseInt takes them); null for anything else, which Bun
 * reports on stderr and replaces with 256.
 */
export function parseOutbound(raw: string): number | null {
  if (!/^\+?\d+(_\d+)*$/.test(raw)) return null;
  const n = Number(raw.replace(/^\+/, "").replaceAll("_", ""));
  return n >= 1 && n <= BUN_MAX_OUTBOUND ? n : null;
}

/** What a process with this environment runs with. */
export function outboundLimit(env: Record<string, string | undefined> = process.env): number {
  return parseOutbound(env[OUTBOUND_ENV] ?? "") ?? BUN_DEFAULT_OUTBOUND;
}
