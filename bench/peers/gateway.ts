/**
 * What bench/peers.ts needs from each peer gateway: how to install it once into its cache dir
 * (outside the repository), and how to start it against the stub on a given port. Each peer
 * lives in its own file beside this one.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { log } from "../support.ts";
import { ChildProcess } from "./processes.ts";

export type PeerName = "portkey" | "litellm" | "bifrost";

export interface InstallContext {
  /** This peer's own dir under the cache root, e.g. ~/.cache/svc-bench-peers/litellm. */
  dir: string;
  /** --skip-install: use what is in `dir`, never run an installer. */
  skipInstall: boolean;
  interrupted: () => boolean;
}

export type Installed = { ok: true; version: string; home: string } | { ok: false; reason: string };

export interface Launch {
  cmd: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** GET here until `ready(status)`: the peer listens and has loaded its config. */
  readyPath: string;
  ready: (status: number) => boolean;
  /** The chat completions route, the headers that route it to the stub, the model name it expects. */
  chatPath: string;
  headers: Record<string, string>;
  model: string;
}

export interface PeerGateway {
  name: PeerName;
  /** One line for the README and the header: what runs and how it reaches the stub. */
  describe: string;
  install(ctx: InstallContext): Promise<Installed>;
  /** `runDir`: a temp dir of this run for config files; removed at the end. */
  launch(installed: Extract<Installed, { ok: true }>, o: { port: number; stubUrl: string; runDir: string }): Launch;
}

/** How long one install step may take: a cold pip install of litellm[proxy] or a cold Go build takes minutes. */
const STEP_TIMEOUT_MS = 20 * 60_000;

/**
 * Runs one install step with its output appended to `dir/install.log`; throws with the log's tail
 * on a non-zero exit or after STEP_TIMEOUT_MS (the step is then stopped by PID).
 */
export async function installStep(ctx: InstallContext, what: string, cmd: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<void> {
  if (ctx.interrupted()) throw new Error("interrupted");
  mkdirSync(ctx.dir, { recursive: true });
  log(`  ${what}: ${cmd.join(" ")}`);
  const logPath = join(ctx.dir, "install.log");
  const from = existsSync(logPath) ? statSync(logPath).size : 0;
  const child = new ChildProcess(what, cmd, logPath, { cwd: options.cwd ?? ctx.dir, env: options.env });
  const { code, timedOut } = await child.finish(STEP_TIMEOUT_MS);
  if (timedOut) throw new Error(`${what} took longer than ${STEP_TIMEOUT_MS / 60_000} min (see ${logPath})`);
  if (code !== 0) throw new Error(`${what} failed (${child.exitDescription}): ${child.tail(500, from)}`);
}

/** The reason a peer could not be installed, for the table: one line, bounded. */
export function notInstalled(err: unknown): Installed {
  const text = err instanceof Error ? err.message : String(err);
  return { ok: false, reason: text.replace(/\s+/g, " ").slice(0, 300) };
}

/** A tool the install or the run needs, or a reason naming it. */
export function need(tool: string): string {
  const path = Bun.which(tool);
  if (!path) throw new Error(`${tool} is not on PATH`);
  return path;
}

export const present = (path: string) => existsSync(path);
