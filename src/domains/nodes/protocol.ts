/**
 * The gateway→node wire: what the node agent (agent/server.ts) serves and the remote backend
 * (remote-backend.ts) calls. Private to svc (both ends are the same binary), so it is plain
 * and small; docs/nodes.md lists it for operators reading logs and firewalls.
 *
 *   GET    /healthz                                   "ok" (no credential)
 *   GET    /v1/node/posture                           the runner's Posture
 *   POST   /v1/node/run[?stream=1]                    WireSpec → NDJSON frames (below)
 *   POST   /v1/node/workspaces                        {quota_bytes?, from_snapshot?} → 201 {id}
 *   DELETE /v1/node/workspaces/:ws                    204 (idempotent)
 *   POST   /v1/node/workspaces/:ws/exec[?stream=1]    WireSpec → NDJSON frames
 *   GET    /v1/node/workspaces/:ws/file?path=P        raw bytes
 *   PUT    /v1/node/workspaces/:ws/file?path=P        raw bytes (at most 8 MiB) → 204
 *   GET    /v1/node/workspaces/:ws/files[?path=P]     DirEntry[]
 *   POST   /v1/node/workspaces/:ws/snapshots/:snap    201 {bytes}
 *   DELETE /v1/node/snapshots/:snap                   204 (idempotent)
 *
 * Every /v1/node route takes `Authorization: Bearer <dispatch secret>`, the random secret the
 * node made at start and sent in its heartbeats. Errors are the gateway's one error body
 * ({"error":{type, message, …}}) with the status the gateway would answer itself.
 *
 * A run answers 200 with newline-delimited JSON, one frame a line: {"t":"out","d":b64} and
 * {"t":"err","d":b64} while it runs (only with ?stream=1), {"t":"ping"} every few seconds so a
 * quiet run keeps the connection alive, then exactly one {"t":"result","result":RunResult} or
 * {"t":"error","status":n,"error":{…}} (a bad spec or path found once the run started).
 */
import type { RunResult, RunSpec } from "../sandboxes/index.ts";

export const NODE_API = "/v1/node";
export const DISPATCH_SECRET_PREFIX = "nd-svc";

/** A file write's ceiling (spec §8: 8 MiB), checked on both ends before the runner checks it again. */
export const MAX_FILE_WRITE_BYTES = 8 * 1024 * 1024;

/** Names the node gives workspaces (the runner's mkdtemp "ws-XXXXXX") and the gateway gives snapshots. */
export const WORKSPACE_ID = /^ws-[A-Za-z0-9_-]{1,64}$/;
export const SNAPSHOT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** A RunSpec as JSON: stdin travels as base64 (it may be bytes); a workspace is named by the URL, never by a path. */
export type WireSpec = Omit<RunSpec, "stdin" | "workspaceDir"> & { stdin_b64?: string };

export function toWire(spec: RunSpec): WireSpec {
  const { stdin, workspaceDir: _ignored, ...rest } = spec;
  const wire: WireSpec = { ...rest };
  if (stdin !== undefined) wire.stdin_b64 = Buffer.from(typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin).toString("base64");
  return wire;
}

export function fromWire(wire: WireSpec): RunSpec {
  // A workspace is the URL's, never a path from the body (even a caller holding the secret names no directory).
  const { stdin_b64, workspaceDir: _path, ...rest } = wire as WireSpec & { workspaceDir?: unknown };
  const spec: RunSpec = { ...rest };
  if (typeof stdin_b64 === "string") spec.stdin = new Uint8Array(Buffer.from(stdin_b64, "base64"));
  return spec;
}

export type Frame =
  | { t: "out"; d: string }
  | { t: "err"; d: string }
  | { t: "ping" }
  | { t: "result"; result: RunResult }
  | { t: "error"; status: number; error: { type: string; message: string } & Record<string, unknown> };

export interface CreateWorkspaceBody {
  quota_bytes?: number;
  from_snapshot?: string;
}
