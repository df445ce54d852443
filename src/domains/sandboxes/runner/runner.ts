/**
 * createRunner: finds out once what this host can do (bwrap, cgroups, languages, workspace
 * quota), proves it by starting one sandbox, and from then on runs programs, keeps session
 * workspaces, and makes and restores their snapshots. No HTTP, database or metering here: the
 * sandbox service calls this.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { chmod, chown, lstat, mkdir, open, stat, statfs, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { detectCgroups, NO_CGROUPS, sweepStaleCgroups } from "./cgroups.ts";
import { validateEnv, BASE_ENV } from "./env.ts";
import { InvalidRunSpecError, SandboxUnavailableError, WorkspaceQuotaError } from "./errors.ts";
import { execute, settleCgroupRemovals, type Host, type SandboxRequest } from "./execute.ts";
import { detectLanguages, LANGUAGE_NAMES, programArgv, reachableBy, type Language } from "./languages.ts";
import type { HostTools } from "./launch.ts";
import { checkLimitsObject, DEFAULT_LIMITS, limitsJson, MAX_LIMITS, resolveLimits, type Limits } from "./limits.ts";
import { accountFiles, HOSTS_FILE, NSSWITCH_FILE, systemMounts, WORKSPACE } from "./sandbox-args.ts";
import { LauncherPool } from "./launchers.ts";
import { Staging } from "./staging.ts";
import type { Posture, RunIO, RunnerOptions, RunResult, RunSpec } from "./types.ts";
import { listWorkspaceDir, readWorkspaceFile, writeWorkspaceFile, type DirEntry } from "./workspace-files.ts";
import { parseWorkspacePath, type Owner } from "./workspace-paths.ts";
import { canMountTmpfs, createWorkspace, isMountPoint, removeWorkspace, type QuotaMode, type Workspace } from "./workspaces.ts";

const MAX_CODE_BYTES = 4 * 1024 * 1024;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 256;
const MAX_ARGS = 1024;
const SNAPSHOT_TIMEOUT_MS = 120_000;
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
  /** Runs one program in a fresh sandbox. Throws InvalidRunSpecError for a bad spec; every other outcome is a RunResult. */
  run(spec: RunSpec, io?: RunIO): Promise<RunResult>;
  /** A new empty session workspace under options.workspaceRoot. */
  createWorkspace(quotaBytes?: number): Promise<Workspace>;
  removeWorkspace(dir: string): Promise<void>;
  /** The files API of a workspace; `quotaBytes` applies to a plain-directory workspace (default: defaults.workspaceBytes). */
  files(workspaceDir: string, quotaBytes?: number): WorkspaceFiles;
  /** Archives a workspace (tar.gz, made by tar inside a sandbox) to `archivePath`; returns its size. */
  snapshot(workspaceDir: string, archivePath: string): Promise<{ bytes: number }>;
  /** Replaces a workspace's content with an archive made by snapshot(). */
  restore(archivePath: string, workspaceDir: string): Promise<void>;
  /** Waits for cgroup clean-up and removes the staging dir. */
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
  };

  const maxOverhead = Math.max(...[...languages.values()].map((l) => l.addressSpaceOverheadBytes));
  const baseRequest = (limits: Limits, overhead: number): Omit<SandboxRequest, "program" | "programFile" | "workspace" | "io"> => ({
    limits,
    addressSpaceBytes: limits.memoryBytes + overhead,
    env: { ...BASE_ENV, ...host.runtimeEnv },
    stdin: null,
    stdinFd: null,
    stdoutFd: null,
  });

  /** A session workspace as run() binds it: owned by the sandbox uid, quota by mount or by watch. */
  async function bindWorkspace(dir: string, limits: Limits): Promise<{ kind: "bind"; dir: string; watchQuotaBytes: number | null }> {
    const abs = resolve(dir);
    const st = await lstat(abs).catch(() => null);
    if (!st || !st.isDirectory()) throw new InvalidRunSpecError("workspaceDir", "must be an existing directory (not a symlink)");
    if (rootMode) {
      if (st.uid !== uid) await chown(abs, uid, gid);
      if (!reachableBy(abs, uid, gid)) throw new SandboxUnavailableError(`workspace ${abs} is not reachable by the sandbox uid ${uid}`);
    }
    // A workspace that is its own mount (createWorkspace's tmpfs) is held to size by the kernel.
    return { kind: "bind", dir: abs, watchQuotaBytes: (await isMountPoint(abs)) ? null : limits.workspaceBytes };
  }

  function planFiles(files: unknown, limits: Limits): { path: string[]; raw: string; content: string }[] {
    if (files === undefined) return [];
    if (typeof files !== "object" || files === null || Array.isArray(files)) throw new InvalidRunSpecError("files", "must be an object of path -> content");
    const entries = Object.entries(files);
    if (entries.length > MAX_FILES) throw new InvalidRunSpecError("files", `at most ${MAX_FILES} files`);
    const out: { path: string[]; raw: string; content: string }[] = [];
    let total = 0;
    for (const [raw, content] of entries) {
      let path: string[];
      try {
        path = parseWorkspacePath(raw);
      } catch (err) {
        throw new InvalidRunSpecError(`files.${raw}`, (err as Error).message);
      }
      if (path.length === 0) throw new InvalidRunSpecError(`files.${raw}`, "must name a file");
      if (typeof content !== "string") throw new InvalidRunSpecError(`files.${raw}`, "must be a UTF-8 string");
      const bytes = Buffer.byteLength(content);
      if (bytes > limits.fileSizeBytes) throw new InvalidRunSpecError(`files.${raw}`, `exceeds limits.fileSizeBytes (${limits.fileSizeBytes})`);
      total += bytes;
      out.push({ path, raw, content });
    }
    if (total > limits.workspaceBytes) throw new InvalidRunSpecError("files", `exceed limits.workspaceBytes (${limits.workspaceBytes}) in all`);
    const joined = new Set(out.map((f) => f.path.join("/")));
    for (const f of out) {
      for (let i = 1; i < f.path.length; i++) {
        if (joined.has(f.path.slice(0, i).join("/"))) throw new InvalidRunSpecError(`files.${f.raw}`, "a parent of this path is also a file");
      }
    }
    return out;
  }

  function planRun(spec: RunSpec): { limits: Limits; language: Language | null; program: string[]; programFile: SandboxRequest["programFile"]; env: Record<string, string> } {
    if (typeof spec !== "object" || spec === null) throw new InvalidRunSpecError("spec", "must be an object");
    const limits = resolveLimits(defaults, max, spec.timeoutMs === undefined ? spec.limits : { ...spec.limits, timeoutMs: spec.timeoutMs });
    let language: Language | null = null;
    if (spec.language !== undefined) {
      if (!LANGUAGE_NAMES.includes(spec.language)) throw new InvalidRunSpecError("language", `must be one of ${LANGUAGE_NAMES.join(", ")}`);
      language = languages.get(spec.language)!;
    }
    const hasCode = spec.code !== undefined;
    const hasCommand = spec.command !== undefined;
    if (hasCode === hasCommand) throw new InvalidRunSpecError(hasCode ? "command" : "code", "give exactly one of code and command");
    const args = spec.args ?? [];
    if (!Array.isArray(args) || args.length > MAX_ARGS || !args.every((a) => typeof a === "string" && !a.includes("\0"))) {
      throw new InvalidRunSpecError("args", `must be at most ${MAX_ARGS} strings without NUL`);
    }
    const userEnv = validateEnv(spec.env);
    if (spec.stdin !== undefined) {
      if (typeof spec.stdin !== "string" && !(spec.stdin instanceof Uint8Array)) throw new InvalidRunSpecError("stdin", "must be a string or bytes");
      const n = typeof spec.stdin === "string" ? Buffer.byteLength(spec.stdin) : spec.stdin.byteLength;
      if (n > MAX_STDIN_BYTES) throw new InvalidRunSpecError("stdin", `at most ${MAX_STDIN_BYTES} bytes`);
    }
    if (hasCode) {
      if (!language) throw new InvalidRunSpecError("language", "is required with code");
      if (typeof spec.code !== "string") throw new InvalidRunSpecError("code", "must be a string");
      if (Buffer.byteLength(spec.code) > MAX_CODE_BYTES) throw new InvalidRunSpecError("code", `at most ${MAX_CODE_BYTES} bytes`);
      if (!language.available) throw new InvalidRunSpecError("language", `${language.name} is not available on this host: ${language.reason}`);
      const env: Record<string, string> = language.name === "python" ? { PYTHONPATH: WORKSPACE } : {};
      return { limits, language, program: programArgv(language, args), programFile: { name: language.file, content: spec.code! }, env: { ...env, ...userEnv } };
    }
    const command = spec.command!;
    if (!Array.isArray(command) || command.length === 0 || !command.every((a) => typeof a === "string" && !a.includes("\0"))) {
      throw new InvalidRunSpecError("command", "must be a non-empty array of strings without NUL");
    }
    if (spec.args !== undefined) throw new InvalidRunSpecError("args", "goes with code; put a command's arguments in command");
    return { limits, language, program: command, programFile: null, env: userEnv };
  }

  async function runPlanned(spec: RunSpec, io: RunIO): Promise<RunResult> {
    const plan = planRun(spec);
    const files = planFiles(spec.files, plan.limits);
    const overhead = plan.language?.addressSpaceOverheadBytes ?? maxOverhead;
    const base = baseRequest(plan.limits, overhead);
    const req: SandboxRequest = {
      ...base,
      env: { ...base.env, ...plan.env },
      program: plan.program,
      programFile: plan.programFile,
      stdin: spec.stdin ?? null,
      io,
      workspace: { kind: "tmpfs", files: [] },
    };
    if (spec.workspaceDir !== undefined) {
      if (typeof spec.workspaceDir !== "string") throw new InvalidRunSpecError("workspaceDir", "must be a path");
      const ws = await bindWorkspace(spec.workspaceDir, plan.limits);
      for (const f of files) {
        await writeWorkspaceFile(ws.dir, f.raw, Buffer.from(f.content), {
          owner,
          quotaBytes: ws.watchQuotaBytes,
          maxBytes: plan.limits.fileSizeBytes,
        });
      }
      req.workspace = ws;
    } else {
      req.workspace = { kind: "tmpfs", files: files.map((f) => ({ path: f.path, content: f.content })) };
    }
    return execute(host, req);
  }

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
      ...baseRequest(defaults, 0),
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

  async function snapshot(workspaceDir: string, archivePath: string): Promise<{ bytes: number }> {
    const limits: Limits = { ...defaults, timeoutMs: SNAPSHOT_TIMEOUT_MS, cpuMs: SNAPSHOT_TIMEOUT_MS, fileSizeBytes: max.workspaceBytes * 2, processes: 16 };
    const ws = await bindWorkspace(workspaceDir, limits);
    const out = await open(archivePath, "wx", 0o600);
    try {
      const result = await execute(host, {
        ...baseRequest(limits, maxOverhead),
        program: ["tar", "--create", "--gzip", "--file=-", `--directory=${WORKSPACE}`, "--numeric-owner", "."],
        programFile: null,
        workspace: { ...ws, watchQuotaBytes: null },
        stdoutFd: out.fd,
        io: {},
      });
      if (result.status !== "ok") throw new SandboxUnavailableError(`snapshot failed (${result.status}): ${result.error ?? result.stderr.trim()}`);
    } finally {
      await out.close();
    }
    return { bytes: (await stat(archivePath)).size };
  }

  async function restore(archivePath: string, workspaceDir: string): Promise<void> {
    const limits: Limits = { ...defaults, timeoutMs: SNAPSHOT_TIMEOUT_MS, cpuMs: SNAPSHOT_TIMEOUT_MS, processes: 16 };
    const ws = await bindWorkspace(workspaceDir, limits);
    const input = await open(archivePath, "r");
    try {
      const result = await execute(host, {
        ...baseRequest(limits, maxOverhead),
        // Extracted by the sandbox user inside the sandbox: whatever the archive holds, it can
        // only land in this workspace, and only within its quota.
        program: ["/bin/sh", "-c", `find ${WORKSPACE} -mindepth 1 -delete && exec tar --extract --gzip --file=- --directory=${WORKSPACE} --no-same-owner`],
        programFile: null,
        workspace: ws,
        stdinFd: input.fd,
        io: {},
      });
      if (result.killed_reason === "workspace_quota") throw new WorkspaceQuotaError(ws.watchQuotaBytes ?? limits.workspaceBytes);
      if (result.status !== "ok" && ws.watchQuotaBytes === null) {
        // tar words ENOSPC in several ways ("Wrote only N of M bytes"); a full file system is the fact to check.
        const fs = await statfs(ws.dir).catch(() => null);
        if (fs && fs.bavail * fs.bsize < 64 * 1024) throw new WorkspaceQuotaError(fs.blocks * fs.bsize);
      }
      if (result.status !== "ok") throw new SandboxUnavailableError(`restore failed (${result.status}): ${result.error ?? result.stderr.trim()}`);
    } finally {
      await input.close();
    }
  }

  return {
    posture: () => current,
    defaults,
    max,
    async run(spec, io = {}) {
      const started = performance.now();
      if (!current.available) {
        planRun(spec);
        return unavailable(current.reason ?? "sandboxes are unavailable", started);
      }
      return runPlanned(spec, io);
    },
    createWorkspace: (quotaBytes = defaults.workspaceBytes) => {
      if (!Number.isSafeInteger(quotaBytes) || quotaBytes < 1024 * 1024 || quotaBytes > max.workspaceBytes) {
        throw new InvalidRunSpecError("quotaBytes", `must be between 1048576 and ${max.workspaceBytes}`);
      }
      return createWorkspace(workspaceRoot, { quota: quotaMode, quotaBytes, owner });
    },
    removeWorkspace,
    files(workspaceDir, quotaBytes = defaults.workspaceBytes) {
      const dir = resolve(workspaceDir);
      const quota = async () => ((await isMountPoint(dir)) ? null : quotaBytes);
      return {
        read: (path) => readWorkspaceFile(dir, path),
        write: async (path, data) => writeWorkspaceFile(dir, path, data, { owner, quotaBytes: await quota() }),
        list: (path) => listWorkspaceDir(dir, path),
      };
    },
    snapshot,
    restore,
    async close() {
      await launchers.close();
      await settleCgroupRemovals();
      if (!options.stagingDir) rmSync(stagingDir, { recursive: true, force: true });
    },
  };
}

function unavailable(reason: string, started: number): RunResult {
  return {
    status: "runner_error",
    exit_code: null,
    signal: null,
    stdout: "",
    stderr: "",
    stdout_truncated: false,
    stderr_truncated: false,
    timed_out: false,
    killed_reason: null,
    duration_ms: Math.round(performance.now() - started),
    cpu_ms: null,
    memory_peak_bytes: null,
    oom_killed: false,
    error: reason,
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
