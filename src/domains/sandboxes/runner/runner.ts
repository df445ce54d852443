/**
 * createRunner: finds out once what this host can do (bwrap, cgroups, languages, workspace
 * quota), proves it by starting one sandbox, and from then on runs programs, keeps session
 * workspaces, and makes and restores their snapshots. No HTTP, database or metering here: the
 * sandbox service calls this.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { detectCgroups, NO_CGROUPS, sweepStaleCgroups } from "./cgroups.ts";
import { InvalidRunSpecError, SandboxError, SandboxUnavailableError } from "./errors.ts";
import { execute, runnerError, type Host } from "./execute.ts";
import { detectLanguages, LANGUAGE_NAMES, reachableBy } from "./languages.ts";
import type { HostTools } from "./launch.ts";
import { checkLimitsObject, DEFAULT_LIMITS, limitsJson, MAX_LIMITS, type Limits } from "./limits.ts";
import { baseRequest, checkSpec, planRun, type RunContext } from "./run-plan.ts";
import { accountFiles, HOSTS_FILE, NSSWITCH_FILE, systemMounts } from "./sandbox-args.ts";
import { restoreWorkspace, snapshotWorkspace } from "./snapshots.ts";
import { LauncherPool } from "./launchers.ts";
import { Staging } from "./staging.ts";
import type { Posture, RunIO, RunnerOptions, RunResult, RunSpec } from "./types.ts";
import { listWorkspaceDir, readWorkspaceFile, writeWorkspaceFile, type DirEntry } from "./workspace-files.ts";
import type { Owner } from "./workspace-paths.ts";
import { canMountTmpfs, createWorkspace, isMountPoint, removeWorkspace, workspaceUnder, type QuotaMode, type Workspace } from "./workspaces.ts";

/** Warm launchers kept ready (launchers.ts): enough for a burst, each an idle shell. */
const DEFAULT_WARM_LAUNCHERS = 4;

/** The files API of one workspace, with the runner's owner and quota already applied. */
export interface WorkspaceFiles {
  read(path: string): Promise<Uint8Array>;
  write(path: string, data: Uint8Array): Promise<void>;
  list(path?: string): Promise<DirEntry[]>;
}

export interface Runner {
  /** What this host can do; fixed after createRunner (for GET /v1/status). */
  posture(): Posture;
  readonly defaults: Readonly<Limits>;
  readonly max: Readonly<Limits>;
  /**
   * Runs one program in a fresh sandbox. Throws a SandboxError only for what the caller must
   * fix (a bad spec; with `files` in a session, a path or quota refusal); every other outcome,
   * the runner's own failures included, is a RunResult (status "runner_error" for those).
   */
  run(spec: RunSpec, io?: RunIO): Promise<RunResult>;
  /** A new empty session workspace under options.workspaceRoot (workspaces must live there). */
  createWorkspace(quotaBytes?: number): Promise<Workspace>;
  removeWorkspace(dir: string): Promise<void>;
  /** The files API of a workspace; `quotaBytes` applies to a plain-directory workspace (default: defaults.workspaceBytes). */
  files(workspaceDir: string, quotaBytes?: number): WorkspaceFiles;
  /** Archives a workspace (tar.gz, made by tar inside a sandbox) to `archivePath`; returns its size. */
  snapshot(workspaceDir: string, archivePath: string): Promise<{ bytes: number }>;
  /** Replaces a workspace's content with an archive made by snapshot(). */
  restore(archivePath: string, workspaceDir: string): Promise<void>;
  /** Stops the warm launchers, waits for cgroup clean-up and removes the staging dir. */
  close(): Promise<void>;
}

function which(name: string, candidates: string[]): string | null {
  for (const p of candidates) if (existsSync(p)) return p;
  const found = Bun.which(name);
  return found && isAbsolute(found) ? found : null;
}

async function bwrapVersion(path: string): Promise<string | null> {
  try {
    const proc = Bun.spawn([path, "--version"], { env: {}, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
    const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return out.match(/bubblewrap (\S+)/)?.[1] ?? null;
  } catch {
    return null;
  }
}

function limitsSpec(limits: Partial<Limits> | undefined, param: string): Limits {
  const merged = { ...DEFAULT_LIMITS, ...limits };
  checkLimitsObject(merged, param);
  return merged;
}

export async function createRunner(options: RunnerOptions): Promise<Runner> {
  const defaults = limitsSpec(options.defaults, "defaults");
  const max = limitsSpec({ ...MAX_LIMITS, ...options.max }, "max");
  for (const [name, value] of Object.entries(defaults)) {
    if (value > max[name as keyof Limits]) throw new InvalidRunSpecError(`defaults.${name}`, "exceeds the maximum");
  }
  const uid = options.uid ?? 65534;
  const gid = options.gid ?? 65534;
  const rootMode = process.getuid?.() === 0;
  const hostUid = rootMode ? uid : (process.getuid?.() ?? uid);
  const owner: Owner | null = rootMode ? { uid, gid } : null;

  const workspaceRoot = resolve(options.workspaceRoot);
  await mkdir(workspaceRoot, { recursive: true });
  const stagingDir = options.stagingDir ? resolve(options.stagingDir) : mkdtempSync(join(tmpdir(), "svc-runner-"));
  Staging.prepare(stagingDir);

  const problems: string[] = [];
  const bwrap = options.bwrapPath ?? which("bwrap", ["/usr/bin/bwrap", "/bin/bwrap"]);
  const tools: HostTools = {
    sh: "/bin/sh",
    prlimit: which("prlimit", ["/usr/bin/prlimit", "/bin/prlimit"]) ?? "",
    setpriv: which("setpriv", ["/usr/bin/setpriv", "/bin/setpriv"]),
    bwrap: bwrap ?? "",
  };
  const version = bwrap && existsSync(bwrap) ? await bwrapVersion(bwrap) : null;
  if (!version) problems.push(`bubblewrap not found or not runnable (${bwrap ?? "bwrap not on PATH"})`);
  if (!tools.prlimit) problems.push("prlimit (util-linux) not found");
  if (rootMode && !tools.setpriv) problems.push("setpriv (util-linux) not found; a root gateway needs it to drop to the sandbox uid");
  if (rootMode && !reachableBy(workspaceRoot, uid, gid)) {
    problems.push(`the workspace root ${workspaceRoot} is not reachable by the sandbox uid ${uid} (a parent directory is closed to it)`);
  }

  const [cgroups, languages, tmpfsOk] = await Promise.all([
    problems.length || options.cgroups === "off" ? Promise.resolve(NO_CGROUPS) : detectCgroups(),
    detectLanguages({ bunPath: options.bunPath, uid: hostUid, gid }),
    options.workspaceQuota === "watch" ? Promise.resolve(false) : canMountTmpfs(workspaceRoot),
  ]);
  await sweepStaleCgroups(cgroups);
  if (options.workspaceQuota === "tmpfs" && !tmpfsOk) problems.push("workspaceQuota \"tmpfs\" was asked for, but this gateway cannot mount a tmpfs");
  const quotaMode: QuotaMode = tmpfsOk ? "tmpfs" : "watch";

  // The generated account and name-service files, the same for every run: written once where
  // the sandbox uid can read them (under the workspace root, which it must reach anyway).
  const etcDir = join(workspaceRoot, ".svc-etc");
  await mkdir(etcDir, { recursive: true, mode: 0o755 });
  await chmod(etcDir, 0o755);
  const accounts = accountFiles(uid, gid);
  const etcFiles: [string, string][] = [
    ["passwd", accounts.passwd],
    ["group", accounts.group],
    ["hosts", HOSTS_FILE],
    ["nsswitch.conf", NSSWITCH_FILE],
  ];
  for (const [name, content] of etcFiles) {
    await writeFile(join(etcDir, name), content, { mode: 0o444 });
    await chmod(join(etcDir, name), 0o444);
  }

  const launchers = new LauncherPool(cgroups, tools.sh, options.warmLaunchers ?? DEFAULT_WARM_LAUNCHERS);
  launchers.refill();

  const js = languages.get("javascript")!;
  const host: Host = {
    tools,
    system: systemMounts(),
    cgroups,
    stagingDir,
    uid,
    gid,
    rootMode,
    etcBinds: etcFiles.map(([name]) => ({ host: join(etcDir, name), sandbox: `/etc/${name}` })),
    launchers,
    runtimeBinds: js.available && js.bind ? [js.bind] : [],
    runtimeEnv: js.available ? js.env : {},
    quotaWatchIntervalMs: options.quotaWatchIntervalMs ?? 200,
    pendingRemovals: new Set(),
  };

  const ctx: RunContext = {
    host,
    defaults,
    max,
    languages,
    workspaceRoot,
    owner,
    maxOverhead: Math.max(...[...languages.values()].map((l) => l.addressSpaceOverheadBytes)),
  };

  const posture: Posture = Object.freeze({
    available: false,
    reason: null,
    bwrap_version: version,
    isolation: {
      namespaces: ["user", "mount", "pid", "ipc", "net", "uts", "cgroup"],
      uid_mode: rootMode ? "setpriv" : "userns",
      sandbox_uid: uid,
      host_uid: hostUid,
      network: "none",
    },
    cgroups: { version: cgroups.version, memory: cgroups.memory, pids: cgroups.pids, note: cgroups.note },
    rlimits: { cpu: true, address_space: true, file_size: true, open_files: true, processes: true, verified: false },
    workspace_quota: quotaMode,
    languages: LANGUAGE_NAMES.map((name) => {
      const l = languages.get(name)!;
      return { name, version: l.version, available: l.available, runtime: l.source, reason: l.reason };
    }),
    limits: { defaults: limitsJson(defaults), max: limitsJson(max) },
  }) as Posture;
  let current: Posture = posture;

  // Prove the whole path once: a sandbox that starts and reports the rlimits it got.
  if (problems.length === 0) {
    const check = await execute(host, {
      ...baseRequest(ctx, defaults, 0),
      program: ["/bin/sh", "-c", "cat /proc/self/limits"],
      programFile: null,
      workspace: { kind: "tmpfs", files: [] },
      io: {},
    });
    if (check.status !== "ok") {
      problems.push(`the self-test sandbox failed: ${check.error ?? check.stderr.trim() ?? check.status}`);
    } else {
      current = { ...posture, rlimits: verifyRlimits(check.stdout, defaults) };
    }
  }
  current = Object.freeze({ ...current, available: problems.length === 0, reason: problems.length ? problems.join("; ") : null });

  return {
    posture: () => current,
    defaults,
    max,
    async run(spec, io = {}) {
      const started = performance.now();
      const checked = checkSpec(ctx, spec);
      if (!current.available) return runnerError(current.reason ?? "sandboxes are unavailable", started);
      try {
        return await execute(host, await planRun(ctx, spec, checked, io));
      } catch (err) {
        if (err instanceof SandboxError && !(err instanceof SandboxUnavailableError)) throw err;
        // The runner's own trouble (staging disk full, an unreachable workspace): the
        // gateway's failure, reported like any sandbox that did not start.
        return runnerError(`runner failure: ${(err as Error).message}`, started);
      }
    },
    createWorkspace: (quotaBytes = defaults.workspaceBytes) => {
      if (!Number.isSafeInteger(quotaBytes) || quotaBytes < 1024 * 1024 || quotaBytes > max.workspaceBytes) {
        throw new InvalidRunSpecError("quotaBytes", `must be between 1048576 and ${max.workspaceBytes}`);
      }
      return createWorkspace(workspaceRoot, { quota: quotaMode, quotaBytes, owner });
    },
    async removeWorkspace(dir) {
      const abs = await workspaceUnder(workspaceRoot, dir);
      if (!abs) throw new InvalidRunSpecError("workspaceDir", "must be a directory under the runner's workspace root");
      await removeWorkspace(abs);
    },
    files(workspaceDir, quotaBytes = defaults.workspaceBytes) {
      const dir = async () => {
        const abs = await workspaceUnder(workspaceRoot, workspaceDir);
        if (!abs) throw new InvalidRunSpecError("workspaceDir", "must be a directory under the runner's workspace root");
        return abs;
      };
      return {
        read: async (path) => readWorkspaceFile(await dir(), path),
        write: async (path, data) => {
          const abs = await dir();
          return writeWorkspaceFile(abs, path, data, { owner, quotaBytes: (await isMountPoint(abs)) ? null : quotaBytes });
        },
        list: async (path) => listWorkspaceDir(await dir(), path),
      };
    },
    snapshot: (workspaceDir, archivePath) => snapshotWorkspace(ctx, workspaceDir, archivePath),
    restore: (archivePath, workspaceDir) => restoreWorkspace(ctx, archivePath, workspaceDir),
    async close() {
      await launchers.close();
      await Promise.all([...host.pendingRemovals]);
      if (!options.stagingDir) rmSync(stagingDir, { recursive: true, force: true });
    },
  };
}

/** Reads a sandbox's /proc/self/limits and checks each limit the runner sets took effect. */
function verifyRlimits(limitsText: string, limits: Limits): Posture["rlimits"] {
  const soft = (label: string): string | null => {
    const line = limitsText.split("\n").find((l) => l.startsWith(label));
    return line ? (line.slice(26).trim().split(/\s+/)[0] ?? null) : null;
  };
  const cpu = soft("Max cpu time") === String(Math.max(1, Math.ceil(limits.cpuMs / 1000)));
  const as = soft("Max address space") !== "unlimited" && soft("Max address space") !== null;
  const fsize = soft("Max file size") === String(limits.fileSizeBytes);
  const nofile = soft("Max open files") === String(limits.openFiles);
  const nproc = soft("Max processes") === String(limits.processes);
  return { cpu, address_space: as, file_size: fsize, open_files: nofile, processes: nproc, verified: cpu && as && fsize && nofile && nproc };
}
