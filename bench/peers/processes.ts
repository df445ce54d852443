/**
 * The child processes of bench/peers.ts (installers and peer gateways), signalled by PID only:
 * a peer's own children (an npm script, a compiler, a worker) are found through /proc by parent
 * PID and stopped too, so nothing outlives the bench and nothing it did not start is touched.
 * Every process's output goes to a log file, whose tail explains a failure.
 */
import { closeSync, openSync, readFileSync, readdirSync } from "node:fs";
import { log, sleep } from "../support.ts";

const STOP_TIMEOUT_MS = 10_000;
const TAIL_BYTES = 1500;

/** Every process started and not yet stopped, for the Ctrl-C path. */
const live = new Set<ChildProcess>();

export const liveProcesses = (): ChildProcess[] => [...live];


function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** PIDs whose parent chain leads to `root`, read now (they are re-parented once `root` dies). */
function descendantsOf(root: number): number[] {
  let pids: number[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** One child with its stdout and stderr in `logPath`. */
export class ChildProcess {
  private readonly proc: ReturnType<typeof Bun.spawn>;
  private stopping: Promise<string[]> | null = null;

  constructor(
    readonly label: string,
    cmd: string[],
    readonly logPath: string,
    options: { cwd?: string; env?: Record<string, string | undefined> } = {},
  ) {
    const fd = openSync(logPath, "a");
    try {
      this.proc = Bun.spawn(cmd, { cwd: options.cwd, env: options.env ?? process.env, stdin: "ignore", stdout: fd, stderr: fd });
    } finally {
      closeSync(fd);
    }
    live.add(this);
  }

  get pid(): number {
    return this.proc.pid;
  }

  get exited(): boolean {
    return this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  get exitDescription(): string {
    return this.proc.signalCode ? `signal ${this.proc.signalCode}` : `exit code ${this.proc.exitCode}`;
  }

  /** The end of the log (from byte `from` on), for a reason in the table. */
  tail(bytes = TAIL_BYTES, from = 0): string {
    try {
      const text = readFileSync(this.logPath).subarray(from).toString("utf8");
      // Without the colour codes Portkey and LiteLLM print, the reason stays readable in the table.
      return text.slice(-bytes).replace(/\x1b\[[0-9;]*m/g, "").trim();
    } catch {
      return "";
    }
  }

  /** Waits for the exit, at most `timeoutMs`; a process still running then is stopped. */
  async finish(timeoutMs: number): Promise<{ code: number | null; timedOut: boolean }> {
    const done = await Promise.race([this.proc.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    if (!done) {
      await this.stop();
      return { code: null, timedOut: true };
    }
    live.delete(this);
    return { code: this.proc.exitCode, timedOut: false };
  }

  /**
   * Polls `url` until `ready(status)` holds, at most `timeoutMs`; throws with the log's tail when
   * the process exits first or the time runs out.
   */
  async waitReady(url: string, ready: (status: number) => boolean, timeoutMs: number, interrupted: () => boolean): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline && !interrupted()) {
      if (this.exited) throw new Error(`exited during startup (${this.exitDescription}): ${this.tail(600)}`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        await res.arrayBuffer();
        if (ready(res.status)) return;
      } catch {
        // not listening yet
      }
      await sleep(200);
    }
    if (interrupted()) throw new Error("interrupted");
    throw new Error(`no answer on ${url} within ${Math.round(timeoutMs / 1000)} s: ${this.tail(600)}`);
  }

  /**
   * SIGTERM to the process, SIGKILL after 10 s; then its descendants (read before the first
   * signal) the same way. Resolves with what is still running afterwards (normally nothing).
   * Idempotent: Ctrl-C and the normal path wait for the same stop.
   */
  stop(): Promise<string[]> {
    return (this.stopping ??= this.doStop());
  }

  private async doStop(): Promise<string[]> {
    const family = [this.pid, ...descendantsOf(this.pid)];
    const waitGone = async (pids: number[], ms: number) => {
      const deadline = performance.now() + ms;
      while (performance.now() < deadline && pids.some(isRunning)) await sleep(50);
    };
    if (!this.exited) signal(this.pid, "SIGTERM");
    await Promise.race([this.proc.exited, sleep(STOP_TIMEOUT_MS)]);
    for (const pid of family.slice(1)) if (isRunning(pid)) signal(pid, "SIGTERM");
    await waitGone(family, 2000);
    const stubborn = family.filter(isRunning);
    if (stubborn.length) {
      log(`${this.label}: SIGKILL to ${stubborn.join(", ")} (still running after SIGTERM)`);
      for (const pid of stubborn) signal(pid, "SIGKILL");
      await waitGone(stubborn, 2000);
    }
    live.delete(this);
    return family.filter(isRunning).map((pid) => `${this.label} pid ${pid}`);
  }
}
