/**
 * The sandboxes area's per-context state (ctx.sandboxes, set by the module's wire()): the
 * gateway's local backend, created on first use (or by `svc serve` before it listens) and
 * closed when serve stops; the execs in flight per session, so a stop can abort them; and the
 * posture GET /v1/status reports.
 *
 * The runner is not created in wire(): every context runs wire() (CLI commands, tests, the
 * routes index), and only a process that runs sandboxes should start bubblewrap and its warm
 * launchers.
 */
import { isAbsolute, join, resolve } from "node:path";
import type { Context } from "../../context.ts";
import { nodeBackends } from "./node-backends.ts";
import { createLocalBackend, type LocalBackend } from "./local-backend.ts";
import type { Posture } from "./runner/index.ts";
import type { SandboxesConfig } from "./config.ts";

/** What GET /v1/status shows of sandboxes (statusPosture). */
export interface SandboxPosture {
  /** sandboxes.local: whether the gateway runs sandboxes itself. */
  local: boolean;
  /** The gateway runner's posture; null while it has not started (or with local = false). */
  runner: Posture | null;
  /** Whether a fleet provider is plugged in (the nodes area). */
  fleet: boolean;
}

export class SandboxRuntime {
  private backend: Promise<LocalBackend> | null = null;
  private started: LocalBackend | null = null;
  private readonly inFlight = new Map<string, Map<AbortController, Promise<void>>>();

  constructor(private readonly ctx: Context) {}

  /** Where the gateway keeps workspaces and snapshots (sandboxes.dir, default <data dir>/sandboxes). */
  static dirOf(config: { data_dir: string; sandboxes: SandboxesConfig }): string {
    const dir = config.sandboxes.dir;
    if (!dir) return join(config.data_dir, "sandboxes");
    return isAbsolute(dir) ? dir : resolve(config.data_dir, dir);
  }

  /** The gateway's backend, started on first call; null when sandboxes.local is false. */
  local(): Promise<LocalBackend> | null {
    if (!this.ctx.config.sandboxes.local) return null;
    this.backend ??= createLocalBackend({
      dir: SandboxRuntime.dirOf(this.ctx.config),
      workspaceQuotaBytes: this.ctx.config.sandboxes.workspace_quota_bytes,
      runner: {
        defaults: { timeoutMs: this.ctx.config.sandboxes.default_timeout_ms },
        max: { timeoutMs: Math.max(this.ctx.config.sandboxes.max_timeout_ms, this.ctx.config.terminal.max_timeout_ms, this.ctx.config.sandboxes.default_timeout_ms) },
      },
    }).then(
      (backend) => {
        this.started = backend;
        if (!backend.runner.posture().available) this.ctx.log.warn("sandboxes cannot run on this gateway", { reason: backend.runner.posture().reason });
        return backend;
      },
      (err: unknown) => {
        this.backend = null;
        throw err;
      },
    );
    return this.backend;
  }

  /**
   * What GET /v1/status shows, which anyone may read: the runner's reason for not running keeps
   * its sense but not the host's paths (the operator sees those in the log and in svc doctor).
   */
  posture(): SandboxPosture {
    const runner = this.started?.runner.posture() ?? null;
    const publicRunner = runner && { ...runner, reason: runner.reason && runner.reason.replace(/\/[^\s)'"]+/g, "(a path on the host)") };
    return { local: this.ctx.config.sandboxes.local, runner: publicRunner, fleet: nodeBackends(this.ctx)?.pick({}) != null };
  }

  /** Registers an exec of `sessionId` in flight until `done` settles; a stop aborts it through `controller`. */
  track(sessionId: string, controller: AbortController, done: Promise<unknown>): void {
    let execs = this.inFlight.get(sessionId);
    if (!execs) this.inFlight.set(sessionId, (execs = new Map()));
    const settled = done.then(
      () => {},
      () => {},
    );
    execs.set(controller, settled);
    void settled.then(() => {
      execs.delete(controller);
      if (!execs.size && this.inFlight.get(sessionId) === execs) this.inFlight.delete(sessionId);
    });
  }

  busy(sessionId: string): boolean {
    return (this.inFlight.get(sessionId)?.size ?? 0) > 0;
  }

  /** Aborts every exec in flight in a session (it was stopped); resolves when they have all ended. */
  async abort(sessionId: string): Promise<void> {
    const execs = this.inFlight.get(sessionId);
    if (!execs) return;
    for (const c of execs.keys()) c.abort();
    await Promise.all(execs.values());
  }

  async close(): Promise<void> {
    const pending = this.backend;
    this.backend = null;
    this.started = null;
    if (pending) await (await pending.catch(() => null))?.close();
  }
}

declare module "../../context.ts" {
  interface Context {
    sandboxes: SandboxRuntime;
  }
}
