/**
 * Workspace snapshots: tar.gz archives made and restored by GNU tar running *inside a
 * sandbox* over the workspace. tar then sees nothing but the workspace, so links in it (to
 * /etc/shadow, to the data dir) are archived as links and never followed, and an archive can
 * only unpack into the workspace, as the sandbox user, within the workspace's quota.
 */
import { open, stat, statfs } from "node:fs/promises";
import { SandboxUnavailableError, WorkspaceQuotaError } from "./errors.ts";
import { execute } from "./execute.ts";
import type { Limits } from "./limits.ts";
import { baseRequest, bindWorkspace, type RunContext } from "./run-plan.ts";
import { WORKSPACE } from "./sandbox-args.ts";

const SNAPSHOT_TIMEOUT_MS = 120_000;

/** Limits for tar: the run's defaults, with room in time and output size for a full workspace. */
function tarLimits(ctx: RunContext): Limits {
  return {
    ...ctx.defaults,
    timeoutMs: SNAPSHOT_TIMEOUT_MS,
    cpuMs: SNAPSHOT_TIMEOUT_MS,
    // The archive goes through RLIMIT_FSIZE too (tar writes it): gzip never doubles a workspace.
    fileSizeBytes: ctx.max.workspaceBytes * 2,
    processes: 16,
  };
}

/** Archives `workspaceDir` to `archivePath` (created 0600; an existing file is never overwritten). */
export async function snapshotWorkspace(ctx: RunContext, workspaceDir: string, archivePath: string): Promise<{ bytes: number }> {
  const limits = tarLimits(ctx);
  const ws = await bindWorkspace(ctx, workspaceDir, limits);
  const out = await open(archivePath, "wx", 0o600);
  try {
    const result = await execute(ctx.host, {
      ...baseRequest(ctx, limits, ctx.maxOverhead),
      program: ["tar", "--create", "--gzip", "--file=-", `--directory=${WORKSPACE}`, "--numeric-owner", "."],
      programFile: null,
      // Reading never grows the workspace: no quota watch.
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

/** Replaces the content of `workspaceDir` with the archive's. */
export async function restoreWorkspace(ctx: RunContext, archivePath: string, workspaceDir: string): Promise<void> {
  const limits = { ...tarLimits(ctx), fileSizeBytes: ctx.defaults.fileSizeBytes };
  const ws = await bindWorkspace(ctx, workspaceDir, limits);
  const input = await open(archivePath, "r");
  try {
    const result = await execute(ctx.host, {
      ...baseRequest(ctx, limits, ctx.maxOverhead),
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
