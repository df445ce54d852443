/**
 * What the benches read about a running svc serve from /proc: memory, open-file limits, CPU time,
 * and which PID is the serve they started.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { SvcServer } from "./support.ts";

/** A line's number from /proc/<pid>/status, e.g. VmRSS in kB. */
export function procStatusKib(pid: number | "self", field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(line.split(/\s+/)[1]);
}

/** The soft limit on open files of a process (what it can actually open). */
export function openFilesLimit(pid: number | "self"): number {
  const line = readFileSync(`/proc/${pid}/limits`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Max open files"));
  const soft = line?.trim().split(/\s+/)[3];
  return soft === "unlimited" ? Number.POSITIVE_INFINITY : Number(soft);
}

/** CPU time of every thread of a process so far, in ms (schedstat counts ns; /proc/<pid>/stat only 10 ms ticks). */
export function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns / 1e6;
}

/** svc serve writes its PID to <data dir>/svc.pid once it listens; check it is that serve before trusting it. */
export function servePid(server: SvcServer): number {
  const pid = Number(readFileSync(`${server.dataDir}/svc.pid`, "utf8").trim());
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  if (!cmdline.includes("serve") || !cmdline.includes(server.dataDir)) throw new Error(`svc.pid names pid ${pid}, which is not this bench's svc serve (${cmdline.join(" ")})`);
  return pid;
}

/** A variable in a process's environment as it runs now (after an execve, the new one's). */
export function procEnv(pid: number, name: string): string | null {
  const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .find((e) => e.startsWith(`${name}=`));
  return entry === undefined ? null : entry.slice(name.length + 1);
}
