/**
 * Session workspaces: the directories that keep a session's files between execs, and their
 * quota. Two ways to hold a workspace to its size, chosen once at start:
 *
 *   "tmpfs"  the workspace is its own tmpfs mounted with size= and nr_inodes=, so the kernel
 *            answers ENOSPC at the quota, mid-write, whatever wrote it. Needs mount(2) on the
 *            host, i.e. a root gateway. Memory-backed: the files live as long as the mount.
 *   "watch"  a plain directory; the runner measures it while a run is going (and after) and
 *            kills a run that takes it over the quota, and the files API checks before
 *            writing. RLIMIT_FSIZE caps any single file. A fast writer can overshoot by what
 *            it writes in one measuring interval: honest, not exact.
 *
 * One-shot runs do not use either: their workspace is a tmpfs of bwrap's own (--size), gone
 * with the run.
 */
import { chmod, chown, lstat, mkdir, mkdtemp, open, readdir, realpath, rm, rmdir, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { O_DIR, type Owner } from "./workspace-paths.ts";

export type QuotaMode = "tmpfs" | "watch";

export interface Usage {
  bytes: number;
  entries: number;
  /** False when the walk stopped at maxEntries (then `bytes` is a lower bound). */
  complete: boolean;
}

/**
 * Space a workspace takes: allocated blocks (so fallocate and sparse tricks count what they
 * really use) of everything under it, symlinks not followed, at most `maxEntries` entries.
 * Directories are opened with O_NOFOLLOW through the parent's descriptor, so a program that
 * swaps a directory for a symlink mid-walk cannot send the walk outside the workspace.
 */
export async function measureUsage(root: string, maxEntries = 200_000): Promise<Usage> {
  const usage: Usage = { bytes: 0, entries: 0, complete: true };
  const top = await open(root, O_DIR).catch(() => null);
  if (!top) return usage;
  const stack = [top];
  try {
    while (stack.length > 0) {
      const dir = stack.pop()!;
      try {
        const names = await readdir(`/proc/self/fd/${dir.fd}`).catch(() => [] as string[]);
        for (const name of names) {
          if (usage.entries >= maxEntries) {
            usage.complete = false;
            return usage;
          }
          usage.entries++;
          const path = `/proc/self/fd/${dir.fd}/${name}`;
          const st = await lstat(path).catch(() => null);
          if (!st) continue;
          usage.bytes += st.blocks * 512;
          if (st.isDirectory()) {
            const sub = await open(path, O_DIR).catch(() => null);
            if (sub) stack.push(sub);
          }
        }
      } finally {
        await dir.close().catch(() => {});
      }
    }
  } finally {
    for (const dir of stack) await dir.close().catch(() => {});
  }
  return usage;
}

async function runTool(argv: string[]): Promise<{ ok: boolean; stderr: string }> {
  try {
    const proc = Bun.spawn(argv, { env: {}, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    return { ok: code === 0, stderr: stderr.trim() };
  } catch (err) {
    return { ok: false, stderr: (err as Error).message };
  }
}

const MOUNT = ["/usr/bin/mount", "/bin/mount"].find((p) => existsSync(p)) ?? null;
const UMOUNT = ["/usr/bin/umount", "/bin/umount"].find((p) => existsSync(p)) ?? null;

function tmpfsOptions(quotaBytes: number, owner: Owner | null): string {
  // One inode per 4 KiB of quota (at least 4096): millions of empty files are a quota too.
  const inodes = Math.max(4096, Math.floor(quotaBytes / 4096));
  const who = owner ? `,uid=${owner.uid},gid=${owner.gid}` : "";
  return `size=${quotaBytes},nr_inodes=${inodes},mode=0700,nosuid,nodev${who}`;
}

/** Whether this gateway can give each workspace its own tmpfs (tries one, 1 MiB). */
export async function canMountTmpfs(parent: string): Promise<boolean> {
  if (process.getuid?.() !== 0 || !MOUNT || !UMOUNT) return false;
  const probe = await mkdtemp(join(parent, ".probe-")).catch(() => null);
  if (!probe) return false;
  try {
    const mounted = await runTool([MOUNT, "-t", "tmpfs", "-o", tmpfsOptions(1024 * 1024, null), "tmpfs", probe]);
    if (!mounted.ok) return false;
    await runTool([UMOUNT, probe]);
    return true;
  } finally {
    await rmdir(probe).catch(() => {});
  }
}

export async function isMountPoint(dir: string): Promise<boolean> {
  try {
    const [a, b] = await Promise.all([stat(dir), stat(dirname(dir))]);
    return a.dev !== b.dev || a.ino === b.ino;
  } catch {
    return false;
  }
}

/**
 * `dir` resolved (symlinks included) when it lies strictly under `root`, else null. Runs and
 * the files API accept only such directories: a caller's mistake must not bind, chown or read
 * the data dir or anything else of the host's. Names under the root that start with "." are
 * the runner's own (the generated /etc files live in .svc-etc) and are refused too.
 */
export async function workspaceUnder(root: string, dir: string): Promise<string | null> {
  try {
    const [r, d] = await Promise.all([realpath(root), realpath(resolve(dir))]);
    if (!d.startsWith(r + sep)) return null;
    const first = d.slice(r.length + 1).split(sep)[0] ?? "";
    return first === "" || first.startsWith(".") ? null : d;
  } catch {
    return null;
  }
}

export interface Workspace {
  dir: string;
  quota: QuotaMode;
  quotaBytes: number;
}

/**
 * Makes a new, empty workspace under `parent`, owned by `owner` (the sandbox uid on the host).
 * With quota "tmpfs" it is a tmpfs of exactly `quotaBytes`.
 */
export async function createWorkspace(parent: string, options: { quota: QuotaMode; quotaBytes: number; owner: Owner | null }): Promise<Workspace> {
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, "ws-"));
  try {
    if (options.quota === "tmpfs") {
      if (!MOUNT) throw new Error("mount(8) not found");
      const mounted = await runTool([MOUNT, "-t", "tmpfs", "-o", tmpfsOptions(options.quotaBytes, options.owner), "tmpfs", dir]);
      if (!mounted.ok) throw new Error(`mounting the workspace tmpfs failed: ${mounted.stderr}`);
    } else {
      await chmod(dir, 0o700);
      if (options.owner) await chown(dir, options.owner.uid, options.owner.gid);
    }
  } catch (err) {
    await rmdir(dir).catch(() => {});
    throw err;
  }
  return { dir, quota: options.quota, quotaBytes: options.quotaBytes };
}

/**
 * Removes a workspace and everything in it. Call it only when no run uses the workspace
 * (a live sandbox keeps a tmpfs mount busy).
 */
export async function removeWorkspace(dir: string): Promise<void> {
  if (await isMountPoint(dir)) {
    if (!UMOUNT) throw new Error("umount(8) not found");
    const res = await runTool([UMOUNT, dir]);
    if (!res.ok) throw new Error(`unmounting the workspace failed: ${res.stderr}`);
  }
  await rm(dir, { recursive: true, force: true });
}
