/**
 * Per-run control groups: the only limits that bind a whole process tree (memory of all
 * processes together, page cache and tmpfs included; a count of processes and threads that
 * holds whatever uid they run as). Each run gets its own group under the gateway's own group,
 * created before the sandbox starts and removed after it is gone.
 *
 * Supported layouts, found once at start:
 *   - cgroup v1 with writable `pids` and/or `memory` hierarchies (as root, or delegated);
 *   - cgroup v2 where the gateway's group (or its parent, for systemd's DelegateSubgroup=
 *     layout) has `memory` and `pids` enabled in cgroup.subtree_control and is writable.
 * Anything else degrades to rlimits only, and the posture says so.
 */
import { mkdir, readFile, readdir, rmdir, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface CgroupSupport {
  version: "v1" | "v2" | null;
  memory: boolean;
  pids: boolean;
  /** v1: the hierarchy dirs new groups go under; v2: all three are the same dir. */
  memoryBase: string | null;
  pidsBase: string | null;
  /**
   * Where CPU time is accounted (v1 cpuacct; v2's cpu.stat is always there). Measurement
   * only: a run's CPU time cannot be read from rusage, because bwrap's monitor process does
   * not reap the sandbox's processes, so their times never reach it.
   */
  cpuacctBase: string | null;
  note: string;
}

export const NO_CGROUPS: CgroupSupport = {
  version: null,
  memory: false,
  pids: false,
  memoryBase: null,
  pidsBase: null,
  cpuacctBase: null,
  note: "cgroups: unavailable, rlimits only",
};

/** Names of per-run groups carry the gateway's pid so a restart can sweep its dead runs' leftovers only. */
const PREFIX = "svc-sbx-";

interface Mount {
  root: string;
  point: string;
  fstype: string;
  superOptions: string[];
}

function mounts(): Mount[] {
  const out: Mount[] = [];
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const f = left.split(" ");
    const r = right.split(" ");
    if (!f[3] || !f[4] || !r[0]) continue;
    out.push({ root: unescape(f[3]), point: unescape(f[4]), fstype: r[0], superOptions: (r[2] ?? "").split(",") });
  }
  return out;
}

/** mountinfo escapes space, tab, newline and backslash as \ooo. */
function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** "hier:controllers:path" lines of /proc/self/cgroup. */
function ownGroups(): { controllers: string[]; path: string }[] {
  return readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const first = line.indexOf(":");
      const second = line.indexOf(":", first + 1);
      return { controllers: line.slice(first + 1, second).split(",").filter(Boolean), path: line.slice(second + 1) };
    });
}

/** The directory of our own group inside a hierarchy mounted at `m`. */
function groupDir(m: Mount, path: string): string {
  const rel = m.root === "/" ? path : path.startsWith(m.root) ? path.slice(m.root.length) : path;
  return join(m.point, rel);
}

async function probe(base: string, files: string[]): Promise<boolean> {
  const dir = join(base, `${PREFIX}probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    await mkdir(dir);
  } catch {
    return false;
  }
  try {
    return files.every((f) => existsSync(join(dir, f)));
  } finally {
    await rmdir(dir).catch(() => {});
  }
}

export async function detectCgroups(): Promise<CgroupSupport> {
  let ms: Mount[];
  let own: { controllers: string[]; path: string }[];
  try {
    ms = mounts();
    own = ownGroups();
  } catch {
    return NO_CGROUPS;
  }

  // v1 first: on a hybrid host the controllers live there, and the v2 tree has none.
  const v1Base = (controller: string): string | null => {
    const m = ms.find((x) => x.fstype === "cgroup" && x.superOptions.includes(controller));
    const g = own.find((x) => x.controllers.includes(controller));
    return m && g ? groupDir(m, g.path) : null;
  };
  const memV1 = v1Base("memory");
  const pidsV1 = v1Base("pids");
  const cpuV1 = v1Base("cpuacct");
  const memOk = memV1 !== null && (await probe(memV1, ["memory.limit_in_bytes", "cgroup.procs"]));
  const pidsOk = pidsV1 !== null && (await probe(pidsV1, ["pids.max", "cgroup.procs"]));
  const cpuOk = cpuV1 !== null && (await probe(cpuV1, ["cpuacct.usage", "cgroup.procs"]));
  if (memOk || pidsOk) {
    const missing = [memOk ? null : "memory", pidsOk ? null : "pids"].filter(Boolean);
    return {
      version: "v1",
      memory: memOk,
      pids: pidsOk,
      memoryBase: memOk ? memV1 : null,
      pidsBase: pidsOk ? pidsV1 : null,
      cpuacctBase: cpuOk ? cpuV1 : null,
      note: missing.length ? `cgroups v1: ${missing.join(", ")} unavailable (rlimits only for that)` : "cgroups v1: memory and pids per run",
    };
  }

  const unified = ms.find((x) => x.fstype === "cgroup2");
  const g2 = own.find((x) => x.controllers.length === 0);
  if (unified && g2) {
    const ownDir = groupDir(unified, g2.path);
    // Our own group when it is delegated to us; else its parent, which is where systemd's
    // Delegate= + DelegateSubgroup= put the delegated root (the service runs in a leaf).
    for (const base of [ownDir, dirname(ownDir)]) {
      let enabled: string[] = [];
      try {
        enabled = (await readFile(join(base, "cgroup.subtree_control"), "utf8")).trim().split(/\s+/);
      } catch {
        continue;
      }
      if (!enabled.includes("memory") || !enabled.includes("pids")) continue;
      if (await probe(base, ["memory.max", "pids.max", "cgroup.kill"])) {
        return {
          version: "v2",
          memory: true,
          pids: true,
          memoryBase: base,
          pidsBase: base,
          cpuacctBase: base,
          note: "cgroups v2: memory and pids per run",
        };
      }
    }
  }
  return NO_CGROUPS;
}

export interface CgroupStats {
  memoryPeakBytes: number | null;
  cpuMs: number | null;
  oomKilled: boolean;
  /** Forks refused because the run hit its pids limit. */
  pidsLimitHits: number;
}

/** One run's group(s). `procsFiles` are what the launch prelude writes its pid into. */
export class RunCgroup {
  readonly dirs: string[];
  readonly procsFiles: string[];
  private readonly version: "v1" | "v2";
  private readonly memoryDir: string | null;
  private readonly pidsDir: string | null;
  private readonly cpuDir: string | null;

  private constructor(version: "v1" | "v2", memoryDir: string | null, pidsDir: string | null, cpuDir: string | null) {
    this.version = version;
    this.memoryDir = memoryDir;
    this.pidsDir = pidsDir;
    this.cpuDir = cpuDir;
    this.dirs = [...new Set([memoryDir, pidsDir, cpuDir].filter((d): d is string => d !== null))];
    this.procsFiles = this.dirs.map((d) => join(d, "cgroup.procs"));
  }

  static async create(support: CgroupSupport, runId: string, memoryBytes: number, processes: number): Promise<RunCgroup | null> {
    if (support.version === null) return null;
    const name = `${PREFIX}${process.pid}-${runId}`;
    const memoryDir = support.memoryBase ? join(support.memoryBase, name) : null;
    const pidsDir = support.pidsBase ? join(support.pidsBase, name) : null;
    const cpuDir = support.cpuacctBase ? join(support.cpuacctBase, name) : null;
    const made: string[] = [];
    try {
      for (const dir of [pidsDir, memoryDir, cpuDir]) {
        if (dir === null || made.includes(dir)) continue;
        await mkdir(dir);
        made.push(dir);
      }
      const group = new RunCgroup(support.version, memoryDir, pidsDir, cpuDir);
      await group.setLimits(memoryBytes, processes);
      return group;
    } catch (err) {
      for (const dir of made) await rmdir(dir).catch(() => {});
      throw err;
    }
  }

  /** Sets (or changes, for a warm launcher's group) the run's memory and process limits. */
  async setLimits(memoryBytes: number, processes: number): Promise<void> {
    if (this.pidsDir) await writeFile(join(this.pidsDir, "pids.max"), String(processes));
    if (!this.memoryDir) return;
    if (this.version === "v2") {
      await writeFile(join(this.memoryDir, "memory.max"), String(memoryBytes));
      // Swap would let a run exceed its memory by paging; there is no reason to allow it.
      await writeFile(join(this.memoryDir, "memory.swap.max"), "0").catch(() => {});
      return;
    }
    // v1's memsw (memory+swap, only with swap accounting) must stay >= the limit, so it is
    // written on both sides of the limit: whichever order a raise or a cut needs succeeds.
    const memsw = join(this.memoryDir, "memory.memsw.limit_in_bytes");
    await writeFile(memsw, String(memoryBytes)).catch(() => {});
    await writeFile(join(this.memoryDir, "memory.limit_in_bytes"), String(memoryBytes));
    await writeFile(memsw, String(memoryBytes)).catch(() => {});
  }

  async stats(): Promise<CgroupStats> {
    const out: CgroupStats = { memoryPeakBytes: null, cpuMs: null, oomKilled: false, pidsLimitHits: 0 };
    const read = (dir: string, file: string) => readFile(join(dir, file), "utf8").catch(() => null);
    const counter = (text: string | null, key: string): number => {
      const m = text?.match(new RegExp(`^${key} (\\d+)$`, "m"));
      return m ? Number(m[1]) : 0;
    };
    if (this.memoryDir) {
      const v2 = this.version === "v2";
      const peak = await read(this.memoryDir, v2 ? "memory.peak" : "memory.max_usage_in_bytes");
      out.memoryPeakBytes = peak === null ? null : Number(peak.trim());
      out.oomKilled = counter(await read(this.memoryDir, v2 ? "memory.events" : "memory.oom_control"), "oom_kill") > 0;
    }
    if (this.pidsDir) out.pidsLimitHits = counter(await read(this.pidsDir, "pids.events"), "max");
    if (this.cpuDir) {
      if (this.version === "v2") {
        const text = await read(this.cpuDir, "cpu.stat");
        if (text !== null) out.cpuMs = Math.round(counter(text, "usage_usec") / 1000);
      } else {
        const ns = await read(this.cpuDir, "cpuacct.usage");
        if (ns !== null) out.cpuMs = Math.round(Number(ns.trim()) / 1e6);
      }
    }
    return out;
  }

  /** SIGKILLs whatever is still in the group (only this run's sandbox processes can be). */
  async killAll(): Promise<void> {
    if (this.version === "v2" && this.dirs[0]) {
      await writeFile(join(this.dirs[0], "cgroup.kill"), "1").catch(() => {});
      return;
    }
    for (const file of this.procsFiles) {
      const text = await readFile(file, "utf8").catch(() => "");
      for (const pid of text.split("\n").filter(Boolean)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  }

  /**
   * Removes the group(s). A group can only go once empty, and the kernel tears a PID
   * namespace down asynchronously after its init dies, so this retries briefly and kills
   * stragglers; a group that still will not go is left for the next sweep.
   */
  async remove(attempts = 60): Promise<boolean> {
    let left = [...this.dirs];
    for (let attempt = 0; attempt < attempts && left.length > 0; attempt++) {
      const still: string[] = [];
      for (const dir of left) {
        try {
          await rmdir(dir);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") still.push(dir);
        }
      }
      left = still;
      if (left.length === 0) break;
      if (attempt === 5) await this.killAll();
      await Bun.sleep(attempt < 10 ? 2 : 10);
    }
    return left.length === 0;
  }
}

/**
 * Removes groups left by earlier gateway processes that are gone (a crash mid-run, or a process
 * that ended without close()). Whatever still runs in them belonged to that gateway's sandboxes
 * or launchers and is killed first; a group that still will not go is left for the next start.
 */
export async function sweepStaleCgroups(support: CgroupSupport): Promise<void> {
  const bases = [...new Set([support.memoryBase, support.pidsBase, support.cpuacctBase].filter((b): b is string => b !== null))];
  for (const base of bases) {
    const names = await readdir(base).catch(() => [] as string[]);
    for (const name of names) {
      const m = name.match(/^svc-sbx-(\d+)-/);
      if (!m || pidAlive(Number(m[1]))) continue;
      const dir = join(base, name);
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          await rmdir(dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") break;
          const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
          for (const pid of procs.split("\n").filter(Boolean)) {
            try {
              process.kill(Number(pid), "SIGKILL");
            } catch {
              // gone already
            }
          }
          await Bun.sleep(5);
        }
      }
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
