/**
 * The gateway's own backend: the SandboxBackend contract (backend.ts) over a bubblewrap runner
 * (runner/). A fleet node runs the same class behind its HTTP agent, so a session behaves the
 * same wherever it lives.
 *
 * Layout under its directory (0700 except where the sandbox uid must pass):
 *   workspaces/   the runner's workspace root: one ws-… directory (a tmpfs on a root gateway) per session
 *   snapshots/    snap_….tar.gz archives, made by tar inside a sandbox
 *   staging/      the runner's private scratch
 *
 * A workspace ref is the directory's name (ws-…); a snapshot id is its archive's name. Both are
 * checked against their patterns before they touch a path, so no id can name anything else.
 */
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { ApiError } from "../../core/errors.ts";
import { BackendUnavailable, type CreateWorkspaceInput, type SandboxBackend, type WorkspaceRef } from "./backend.ts";
import { createRunner, type Posture, type Runner, type RunnerOptions } from "./runner/index.ts";

const WORKSPACE_REF = /^ws-[A-Za-z0-9]{1,32}$/;
const SNAPSHOT_ID = /^snap_[A-Za-z0-9_-]{1,64}$/;

export interface LocalBackendOptions {
  /** The backend's directory (see above); made if missing. */
  dir: string;
  /** null on the gateway; a node's own id on a node. */
  nodeId?: string | null;
  /** Session workspace size. */
  workspaceQuotaBytes: number;
  /** Passed on to createRunner (limits, bwrap path, warm launchers, …). */
  runner?: Partial<Omit<RunnerOptions, "workspaceRoot" | "stagingDir">>;
}

export interface LocalBackend extends SandboxBackend {
  readonly runner: Runner;
  /** Stops the runner's warm launchers and removes its scratch (workspaces and snapshots stay). */
  close(): Promise<void>;
}

function prepareDir(path: string, mode: number): void {
  mkdirSync(path, { recursive: true, mode });
  chmodSync(path, mode);
}

export async function createLocalBackend(options: LocalBackendOptions): Promise<LocalBackend> {
  const root = options.dir;
  // The sandbox uid (a root gateway drops to it before bwrap) must pass through the backend's
  // directory to reach its workspace; it can list nothing there.
  prepareDir(root, 0o711);
  const workspaceRoot = join(root, "workspaces");
  const snapshotsDir = join(root, "snapshots");
  prepareDir(snapshotsDir, 0o700);
  const runner = await createRunner({ ...options.runner, workspaceRoot, stagingDir: join(root, "staging") });
  const nodeId = options.nodeId ?? null;
  const quota = options.workspaceQuotaBytes;

  const workspaceDir = (ws: WorkspaceRef): string => {
    if (!WORKSPACE_REF.test(ws.id)) throw new ApiError(400, "invalid_request", "not a workspace of this backend");
    return join(workspaceRoot, ws.id);
  };
  /** A session's workspace that vanished (its tmpfs did not survive a reboot) is the backend's loss, not the caller's mistake. */
  const existing = async (ws: WorkspaceRef): Promise<string> => {
    const dir = workspaceDir(ws);
    if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new BackendUnavailable(nodeId, `the workspace ${ws.id} is gone`);
    return dir;
  };
  const archiveOf = (snapshotId: string): string => {
    if (!SNAPSHOT_ID.test(snapshotId)) throw new ApiError(400, "invalid_request", "not a snapshot id");
    return join(snapshotsDir, `${snapshotId}.tar.gz`);
  };

  return {
    nodeId,
    runner,
    posture: async (): Promise<Posture> => runner.posture(),
    run: (spec, io) => runner.run({ ...spec, workspaceDir: undefined }, io),
    async createWorkspace(input: CreateWorkspaceInput = {}) {
      const archive = input.fromSnapshot === undefined ? null : archiveOf(input.fromSnapshot);
      if (archive && !existsSync(archive)) throw new BackendUnavailable(nodeId, `the snapshot ${input.fromSnapshot} is not on this backend`);
      const ws = await runner.createWorkspace(input.quotaBytes ?? quota);
      try {
        if (archive) await runner.restore(archive, ws.dir);
      } catch (err) {
        await runner.removeWorkspace(ws.dir).catch(() => {});
        throw err;
      }
      return { id: basename(ws.dir) };
    },
    exec: async (ws, spec, io) => runner.run({ ...spec, workspaceDir: await existing(ws) }, io),
    readFile: async (ws, path) => runner.files(await existing(ws), quota).read(path),
    writeFile: async (ws, path, data) => runner.files(await existing(ws), quota).write(path, data),
    listFiles: async (ws, path) => runner.files(await existing(ws), quota).list(path),
    snapshot: async (ws, snapshotId) => runner.snapshot(await existing(ws), archiveOf(snapshotId)),
    deleteSnapshot: async (snapshotId) => rm(archiveOf(snapshotId), { force: true }),
    async removeWorkspace(ws) {
      const dir = workspaceDir(ws);
      if (existsSync(dir)) await runner.removeWorkspace(dir);
    },
    close: () => runner.close(),
  };
}
