/** Small facts about other processes, by PID, for pid files left behind by a crash. */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/**
 * True while the process runs. A zombie (exited, not yet reaped: its parent died and the
 * machine's PID 1 has not collected it) still answers signal 0 but runs nothing, so it is dead.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    // "pid (comm) S …": the state follows the last ")", since comm may itself hold one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false; // no /proc (not Linux) or gone meanwhile: signal 0 said it was there
  }
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** The PID recorded in a pid file, when that process still runs and its command line contains `marker`. */
export function livePid(pidFile: string, marker: string): number | null {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 1) return null;
  return isAlive(pid) && commandLine(pid).includes(marker) ? pid : null;
}

export function writePid(pidFile: string, pid: number): void {
  writeFileSync(pidFile, `${pid}\n`, { mode: 0o600 });
}

export function removePid(pidFile: string): void {
  rmSync(pidFile, { force: true });
}

/** SIGTERM, then SIGKILL if it has not gone within `graceMs`. */
export async function terminate(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return;
    await Bun.sleep(50);
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
