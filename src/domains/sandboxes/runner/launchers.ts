/**
 * Warm launchers: shells that have already joined a fresh per-run cgroup and wait for their
 * run. Moving a process into a cgroup takes the kernel's cgroup_threadgroup_rwsem for writing,
 * which waits for an RCU grace period (unless the hierarchy is mounted with favordynmods): on
 * a busy 2-core host that was 10-15 ms of every run's latency, more than bwrap's whole setup.
 * A launcher pays it before the run is asked for. Measured on the same host: a sandbox around
 * `true` took 25 ms with the join on the critical path, 13 ms from a warm launcher, 13 ms
 * with no cgroup at all.
 *
 * A launcher is `sh` running as the gateway's user (it must, to write cgroup.procs). It reads
 * one line, the path of a script the runner wrote into its private staging dir, and sources it:
 * the script opens the run's staged files as descriptors 0 and 3-9 and execs the same launch
 * chain a cold start uses (launch.ts). Every word in that script is single-quoted, the one
 * quoting in which no character but the quote itself is special; NUL never gets this far.
 * Launchers exist only where per-run cgroups are used: without them there is nothing to pay.
 */
import { RunCgroup, type CgroupSupport } from "./cgroups.ts";
import { JOIN_FAILED } from "./launch.ts";

/** dash (Debian's /bin/sh) redirects single-digit descriptors only. */
export const MAX_LAUNCHER_FD = 9;

const WAIT_SCRIPT = `while [ "$1" != -- ]; do echo $$ > "$1" || exit ${JOIN_FAILED}; shift; done; unset PWD; IFS= read -r script || exit ${JOIN_FAILED}; . "$script"`;

export interface Launcher {
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  cgroup: RunCgroup;
}

/** Quotes one word for sh: '...' with each ' written as '\''. */
export function shellQuote(word: string): string {
  if (word.includes("\0")) throw new Error("NUL in a shell word");
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The script a launcher sources: its descriptors, then the launch chain. */
export function launcherScript(stdinPath: string | null, fds: { fd: number; path: string; write: boolean }[], argv: string[]): string {
  const redirs = [`0<${shellQuote(stdinPath ?? "/dev/null")}`];
  for (const f of fds) {
    if (f.fd < 3 || f.fd > MAX_LAUNCHER_FD) throw new Error(`descriptor ${f.fd} cannot be redirected by a launcher`);
    redirs.push(`${f.fd}${f.write ? ">" : "<"}${shellQuote(f.path)}`);
  }
  return `exec ${redirs.join(" ")} || exit ${JOIN_FAILED}\nexec ${argv.map(shellQuote).join(" ")}\n`;
}

export class LauncherPool {
  private readonly ready: Launcher[] = [];
  private readonly support: CgroupSupport;
  private readonly sh: string;
  private readonly size: number;
  private starting = 0;
  private closed = false;

  constructor(support: CgroupSupport, sh: string, size: number) {
    this.support = support;
    this.sh = sh;
    this.size = size;
  }

  get enabled(): boolean {
    return this.size > 0 && this.support.version !== null;
  }

  /** Tops the pool up in the background; a failure just leaves runs to start cold. */
  refill(): void {
    if (!this.enabled) return;
    while (!this.closed && this.ready.length + this.starting < this.size) {
      this.starting++;
      void this.start()
        .then((l) => {
          if (!l) return;
          if (this.closed) void discard(l);
          else this.ready.push(l);
        })
        .catch(() => {})
        .finally(() => {
          this.starting--;
        });
    }
  }

  private async start(): Promise<Launcher | null> {
    const runId = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
    // Limits are written when a run claims it; until then the group holds one idle shell.
    const cgroup = await RunCgroup.create(this.support, runId, 64 * 1024 * 1024, 8);
    if (!cgroup) return null;
    try {
      const proc = Bun.spawn({
        cmd: [this.sh, "-c", WAIT_SCRIPT, "svc-sandbox-launcher", ...cgroup.procsFiles, "--"],
        env: {},
        cwd: "/",
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      // An idle launcher must not keep the gateway's event loop alive (a CLI that never
      // calls close() would hang); take() refs it again for its run.
      proc.unref();
      return { proc, cgroup };
    } catch {
      await cgroup.remove();
      return null;
    }
  }

  /** A warm launcher with this run's limits on its cgroup, or null (start cold). */
  async take(memoryBytes: number, processes: number): Promise<Launcher | null> {
    for (;;) {
      const l = this.ready.shift();
      this.refill();
      if (!l) return null;
      if (l.proc.exitCode !== null || l.proc.signalCode !== null) {
        void discard(l);
        continue;
      }
      try {
        await l.cgroup.setLimits(memoryBytes, processes);
        l.proc.ref();
        return l;
      } catch {
        void discard(l);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.ready.splice(0).map(discard));
  }
}

async function discard(l: Launcher): Promise<void> {
  l.proc.kill("SIGKILL");
  await l.proc.exited.catch(() => {});
  await l.cgroup.remove();
}
