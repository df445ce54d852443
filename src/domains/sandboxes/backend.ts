/**
 * Where sandboxes run: the contract between the sandbox service (one-shots, sessions, files,
 * snapshots, metering) and what executes — the gateway's own runner (local-backend.ts) or an
 * enrolled fleet node reached over HTTP (the nodes area's remote backend). The service picks a
 * backend per run or per session and never knows which kind it holds.
 *
 * A session's workspace and its snapshots live where the backend runs; the service keeps only
 * their ids (a snapshot's archive stays on its node, spec §2.6). Errors a caller must fix come
 * back as ApiErrors (a bad path 400, a file over 8 MiB 413, the workspace full 507-as-400); a
 * backend that cannot be reached throws BackendUnavailable, which stops sessions on it
 * (node_unreachable) and fails runs with sandbox_failed.
 */
import { ApiError } from "../../core/errors.ts";
import type { DirEntry, Posture, RunIO, RunResult, RunSpec } from "./runner/index.ts";

/** A session workspace on a backend: opaque to the service. */
export interface WorkspaceRef {
  /** The backend's own name for it (a directory on the gateway, an id on a node). */
  id: string;
}

export interface CreateWorkspaceInput {
  /** Workspace quota in bytes (default: the backend's). */
  quotaBytes?: number;
  /** Start from this snapshot (which must live on this backend). */
  fromSnapshot?: string;
}

export interface SandboxBackend {
  /** null: the gateway itself; otherwise the node's id. */
  readonly nodeId: string | null;
  /** What this backend can do (languages, limits, isolation), for GET /v1/status and GET /v1/nodes. */
  posture(): Promise<Posture>;
  /** A one-shot run in a fresh private workspace that vanishes after it. */
  run(spec: RunSpec, io?: RunIO): Promise<RunResult>;
  createWorkspace(input?: CreateWorkspaceInput): Promise<WorkspaceRef>;
  /** A run over a session's workspace (spec.workspaceDir is ignored: the workspace is `ws`). */
  exec(ws: WorkspaceRef, spec: RunSpec, io?: RunIO): Promise<RunResult>;
  readFile(ws: WorkspaceRef, path: string): Promise<Uint8Array>;
  /** Writes one file of at most MAX_FILE_WRITE_BYTES (8 MiB). */
  writeFile(ws: WorkspaceRef, path: string, data: Uint8Array): Promise<void>;
  listFiles(ws: WorkspaceRef, path?: string): Promise<DirEntry[]>;
  /** Archives the workspace under `snapshotId`, kept on this backend. */
  snapshot(ws: WorkspaceRef, snapshotId: string): Promise<{ bytes: number }>;
  deleteSnapshot(snapshotId: string): Promise<void>;
  removeWorkspace(ws: WorkspaceRef): Promise<void>;
}

/** The backend could not be reached or answered nonsense: the sandbox's fault, never the caller's. */
export class BackendUnavailable extends ApiError {
  constructor(
    readonly nodeId: string | null,
    reason: string,
  ) {
    super(503, "sandbox_unavailable", nodeId ? `the node running this sandbox (${nodeId}) cannot be reached: ${reason}` : `sandboxes cannot run on this gateway: ${reason}`, {
      node_id: nodeId,
    });
  }
}
