/**
 * Runs one program in one fresh sandbox and watches it to the end: the launch (launch.ts), the
 * per-run cgroup, the wall-clock timer, the output caps, the workspace quota watch, the abort
 * signal, and the reading of how it ended. Both user runs and the runner's own tar runs
 * (snapshots) go through here, so they get the same isolation and the same limits.
 */
import { stat } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { readCapped } from "./capped-output.ts";
import { RunCgroup, type CgroupSupport } from "./cgroups.ts";
import { ARGS_FD, launchArgv, STARTED_FD, type HostTools } from "./launch.ts";
import type { Limits } from "./limits.ts";
import { bwrapOptions, WORKSPACE, type FdFile, type SandboxLayout } from "./sandbox-args.ts";
import { launcherScript, MAX_LAUNCHER_FD, type LauncherPool } from "./launchers.ts";
import { Staging } from "./staging.ts";
import type { KilledReason, RunIO, RunResult, RunStatus } from "./types.ts";
import { measureUsage } from "./workspaces.ts";
import { PROGRAM_DIR } from "./languages.ts";

/** What the runner knows about the host, found once at start. */
export interface Host {
  tools: HostTools;
  /** Options for the read-only system part of the sandbox (sandbox-args.ts systemMounts). */
  system: string[];
  cgroups: CgroupSupport;
  stagingDir: string;
  uid: number;
  gid: number;
  /** Drop to uid/gid before bwrap (the gateway is root). */
  rootMode: boolean;
  /** /etc/passwd, /etc/group, /etc/hosts, /etc/nsswitch.conf: generated once, mounted read-only. */
  etcBinds: { host: string; sandbox: string }[];
  launchers: LauncherPool;
  /** The JavaScript runtime, mounted into every sandbox when there is one. */
  runtimeBinds: { host: string; sandbox: string }[];
  runtimeEnv: Record<string, string>;
  quotaWatchIntervalMs: number;
  /** Removals of cgroups still busy when their run returned; close() waits for them. */
  pendingRemovals: Set<Promise<unknown>>;
}

export type WorkspaceInput =
  | { kind: "bind"; dir: string; watchQuotaBytes: number | null }
  | { kind: "tmpfs"; files: { path: string[]; content: string | Uint8Array }[] };

export interface SandboxRequest {
  program: string[];
  programFile: { name: string; content: string } | null;
  limits: Limits;
  addressSpaceBytes: number;
  workspace: WorkspaceInput;
  env: Record<string, string>;
  stdin: string | Uint8Array | null;
  /** A descriptor to send stdout to instead of capturing it (snapshots). */
  stdoutFd: number | null;
  stdinFd: number | null;
  io: RunIO;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, num]) => [num, name]));
const SIGXCPU = osConstants.signals.SIGXCPU;
const SIGKILL = osConstants.signals.SIGKILL;

/** The result of a run the runner itself could not carry out. */
export function runnerError(message: string, started: number): RunResult {
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
    error: message,
  };
}

/** Finishes removing a group that was still busy when its run returned, tracked for close(). */
function removeLater(host: Host, cgroup: RunCgroup): void {
  const removal: Promise<unknown> = cgroup.remove().finally(() => host.pendingRemovals.delete(removal));
  host.pendingRemovals.add(removal);
}

export async function execute(host: Host, req: SandboxRequest): Promise<RunResult> {
  const started = performance.now();
  if (req.io.signal?.aborted) return { ...runnerError("aborted before start", started), status: "killed", killed_reason: "aborted", error: null };
  const runId = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  const staging = new Staging(host.stagingDir);
  let cgroup: RunCgroup | null = null;
  try {
    // Staged files and the descriptor each becomes in the child: 0-2 stdio, STARTED_FD,
    // ARGS_FD, then the program and input files.
    const staged: { fd: number; path: string; write: boolean }[] = [];
    const childFd = async (content: string | Uint8Array) => {
      const fd = STARTED_FD + staged.length;
      staged.push({ fd, path: await staging.file(content), write: false });
      return fd;
    };
    staged.push({ fd: STARTED_FD, path: await staging.file(""), write: true });
    const argsFile = { fd: ARGS_FD, path: "", write: false };
    staged.push(argsFile);
    const dataFiles: FdFile[] = [];
    if (req.programFile) {
      dataFiles.push({ fd: await childFd(req.programFile.content), dest: `${PROGRAM_DIR}/${req.programFile.name}`, mode: "0444" });
    }
    let workspace: SandboxLayout["workspace"];
    if (req.workspace.kind === "bind") {
      workspace = { kind: "bind", hostDir: req.workspace.dir };
    } else {
      const dirs = new Set<string>();
      const files: FdFile[] = [];
      for (const f of req.workspace.files) {
        for (let i = 1; i < f.path.length; i++) dirs.add(`${WORKSPACE}/${f.path.slice(0, i).join("/")}`);
        files.push({ fd: await childFd(f.content), dest: `${WORKSPACE}/${f.path.join("/")}`, mode: "0644" });
      }
      workspace = { kind: "tmpfs", sizeBytes: req.limits.workspaceBytes, dirs: [...dirs].sort(), files };
    }
    const layout: SandboxLayout = {
      uid: host.uid,
      gid: host.gid,
      tmpBytes: req.limits.tmpBytes,
      workspace,
      dataFiles,
      roBinds: [...host.etcBinds, ...host.runtimeBinds],
      env: req.env,
    };
    argsFile.path = await staging.file(`${bwrapOptions(layout, host.system).join("\0")}\0`);
    const stdinPath = req.stdinFd === null && req.stdin !== null && req.stdin !== undefined ? await staging.file(req.stdin) : null;
    const markerPath = staged[0]!.path;

    const launchFor = (joinFiles: string[]) =>
      launchArgv({
        tools: host.tools,
        limits: req.limits,
        addressSpaceBytes: req.addressSpaceBytes,
        dropTo: host.rootMode ? { uid: host.uid, gid: host.gid } : null,
        cgroupProcsFiles: joinFiles,
        program: req.program,
      });

    // A warm launcher when one fits this run (it redirects single-digit descriptors only, and
    // the runner's own tar runs hand it descriptors it cannot open by path); else a cold start.
    let proc: Bun.Subprocess<"ignore" | "pipe" | number, "pipe" | number, "pipe"> | null = null;
    const canWarm = req.stdoutFd === null && req.stdinFd === null && staged.every((f) => f.fd <= MAX_LAUNCHER_FD);
    const launcher = canWarm ? await host.launchers.take(req.limits.memoryBytes, req.limits.processes) : null;
    if (launcher) {
      cgroup = launcher.cgroup;
      try {
        const script = await staging.file(launcherScript(stdinPath, staged, launchFor([])));
        launcher.proc.stdin.write(`${script}\n`);
        await launcher.proc.stdin.end();
        proc = launcher.proc;
      } catch {
        // It died between take() and now: discard it and start cold.
        launcher.proc.kill(SIGKILL);
        removeLater(host, launcher.cgroup);
        cgroup = null;
      }
    }
    if (!proc) {
      try {
        cgroup = await RunCgroup.create(host.cgroups, runId, req.limits.memoryBytes, req.limits.processes);
      } catch (err) {
        // Fail closed: a host that has cgroups but cannot make one now does not run unlimited.
        return runnerError(`cannot create the run's cgroup: ${(err as Error).message}`, started);
      }
      try {
        const stdinFd = req.stdinFd ?? (stdinPath ? await staging.open(stdinPath) : null);
        const fds: number[] = [];
        for (const f of staged) fds[f.fd] = await staging.open(f.path, f.write);
        proc = Bun.spawn({
          cmd: launchFor(cgroup?.procsFiles ?? []),
          // Empty on purpose: bwrap's PID 1 keeps the environment bwrap started with, and the
          // program can read it at /proc/1/environ. The gateway's secrets must not be there.
          env: {},
          // Nothing of the gateway's own working directory (its data dir, under systemd) either.
          cwd: "/",
          stdio: [stdinFd ?? "ignore", req.stdoutFd ?? "pipe", "pipe", ...fds.slice(STARTED_FD)],
        }) as NonNullable<typeof proc>;
      } catch (err) {
        return runnerError(`cannot start bwrap: ${(err as Error).message}`, started);
      } finally {
        // The child holds its own copies now.
        await staging.closeHandles();
      }
    }
    const child = proc;

    // A holder, not a plain `let`: the timer and readers set it from callbacks.
    const killed: { reason: KilledReason | null } = { reason: null };
    const kill = (reason: KilledReason) => {
      if (killed.reason !== null) return;
      killed.reason = reason;
      child.kill(SIGKILL);
      void cgroup?.killAll();
    };
    const timer = setTimeout(() => kill("timeout"), req.limits.timeoutMs);
    const onAbort = () => kill("aborted");
    req.io.signal?.addEventListener("abort", onAbort, { once: true });
    let watcher: ReturnType<typeof setInterval> | null = null;
    const ws = req.workspace;
    if (ws.kind === "bind" && ws.watchQuotaBytes !== null) {
      const quota = ws.watchQuotaBytes;
      let measuring = false;
      watcher = setInterval(() => {
        if (measuring) return;
        measuring = true;
        void measureUsage(ws.dir)
          .then((u) => {
            if (u.bytes > quota || !u.complete) kill("workspace_quota");
          })
          .finally(() => {
            measuring = false;
          });
      }, host.quotaWatchIntervalMs);
    }

    const guard = (fn: ((c: Uint8Array) => void) | undefined) =>
      fn
        ? (c: Uint8Array) => {
            try {
              fn(c);
            } catch {
              // a failing consumer (a closed SSE stream) must not break the run's accounting
            }
          }
        : undefined;
    const stdoutP =
      req.stdoutFd === null
        ? readCapped(child.stdout as ReadableStream<Uint8Array>, req.limits.stdoutBytes, guard(req.io.onStdout), () => kill("output_limit"))
        : Promise.resolve({ bytes: new Uint8Array(0), truncated: false });
    const stderrP = readCapped(child.stderr, req.limits.stderrBytes, guard(req.io.onStderr), () => kill("output_limit"));
    const [out, err] = await Promise.all([stdoutP, stderrP, child.exited]);
    clearTimeout(timer);
    if (watcher) clearInterval(watcher);
    req.io.signal?.removeEventListener("abort", onAbort);

    const sandboxStarted = ((await stat(markerPath).catch(() => null))?.size ?? 0) > 0;
    const cg = cgroup ? await cgroup.stats() : null;
    const cpuMs = cg?.cpuMs ?? null;
    const decoder = new TextDecoder();
    const stderrText = decoder.decode(err.bytes);

    if (!sandboxStarted && killed.reason === null) {
      return runnerError(`the sandbox did not start (exit ${child.exitCode ?? child.signalCode}): ${stderrText.trim().slice(0, 2000)}`, started);
    }

    const killedReason = killed.reason;
    const exitCode = child.exitCode;
    let signal: string | null = null;
    let status: RunStatus;
    let reason: KilledReason | null = killedReason;
    if (reason === null && ws.kind === "bind" && ws.watchQuotaBytes !== null) {
      // A run can finish between two measurements; the last word is the size it left behind.
      const u = await measureUsage(ws.dir);
      if (u.bytes > ws.watchQuotaBytes || !u.complete) reason = "workspace_quota";
    }
    if (reason === null && cg?.oomKilled) reason = "memory_limit";
    // bwrap reports a program killed by signal N as exit status 128+N (like a shell does).
    if (killedReason === null && exitCode !== null && exitCode > 128 && exitCode <= 128 + 64) {
      const num = exitCode - 128;
      signal = SIGNAL_NAMES.get(num) ?? `SIG${num}`;
      const cpuLimitMs = Math.ceil(req.limits.cpuMs / 1000) * 1000;
      if (reason === null && (num === SIGXCPU || (num === SIGKILL && cpuMs !== null && cpuMs >= cpuLimitMs))) reason = "cpu_limit";
    }
    if (killedReason !== null) signal = "SIGKILL";

    if (reason === "timeout") status = "timeout";
    else if (reason !== null) status = "killed";
    else if (exitCode === 0) status = "ok";
    else status = "error";

    return {
      status,
      exit_code: killedReason !== null ? null : exitCode,
      signal,
      stdout: decoder.decode(out.bytes),
      stderr: stderrText,
      stdout_truncated: out.truncated,
      stderr_truncated: err.truncated,
      timed_out: reason === "timeout",
      killed_reason: reason,
      duration_ms: Math.round(performance.now() - started),
      cpu_ms: cpuMs,
      memory_peak_bytes: cg?.memoryPeakBytes ?? null,
      oom_killed: cg?.oomKilled ?? false,
      error: null,
    };
  } finally {
    await staging.closeAll();
    // Waiting for the group to empty makes "run() returned" mean "none of its processes is
    // left" (bwrap's monitor can exit a moment before the kernel has finished tearing the
    // PID namespace down). A group that stays busy is finished in the background.
    if (cgroup && !(await cgroup.remove(20))) removeLater(host, cgroup);
  }
}
