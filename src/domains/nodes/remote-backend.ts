/**
 * RemoteBackend: a SandboxBackend on a fleet node, over the node agent's HTTP API
 * (protocol.ts). The sandbox service holds one like the gateway's own runner and never knows
 * the difference, except in the errors:
 *
 *   - the node cannot be reached, times out, refuses the dispatch credential, redirects, or
 *     answers nonsense (a stream that ends before its result: the node died mid-run)
 *       → BackendUnavailable (503 sandbox_unavailable; sessions there stop with node_unreachable)
 *   - the node answers an error the caller must fix (400 bad spec or path, 404, 413 over 8 MiB)
 *       → the same ApiError the gateway's runner would give
 *   - the node's runner failed (5xx) → ApiError 503 sandbox_failed
 *
 * Each call is timed (nodes.request_timeout_secs; a run gets its own timeout plus
 * nodes.run_grace_secs; a snapshot nodes.snapshot_timeout_secs) and reported to the fleet:
 * answered or failed, and the overhead it added (for reliability and latency in GET /v1/nodes).
 */
import { ApiError } from "../../core/errors.ts";
import {
  BackendUnavailable,
  type CreateWorkspaceInput,
  type DirEntry,
  type Posture,
  type RunIO,
  type RunResult,
  type RunSpec,
  type SandboxBackend,
  type WorkspaceRef,
} from "../sandboxes/index.ts";
import { type Frame, MAX_FILE_WRITE_BYTES, NODE_API, toWire } from "./protocol.ts";

/** What the fleet hands a backend: where the node is, its credential, and where to report. */
export interface NodeLink {
  nodeId: string;
  /** Base URL of the node agent (from its heartbeat), without a trailing slash. */
  endpoint: string;
  /** The dispatch secret from its latest heartbeat. */
  secret: string;
  /** The runner posture from its latest heartbeat (null before one carried it). */
  posture: Posture | null;
  timeouts: { requestMs: number; runGraceMs: number; snapshotMs: number };
  /** An execution starts / ends on the node (its in-flight count). */
  begin(): void;
  end(): void;
  /** A call was answered (ok) or failed; overheadMs is null when it cannot be told apart from the work. */
  outcome(ok: boolean, overheadMs: number | null): void;
}

/** A run's own timeout when the spec names none: the node's default, else the runner's. */
const FALLBACK_RUN_TIMEOUT_MS = 10_000;

const b64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));

interface CallOptions {
  body?: Uint8Array;
  json?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
}

export class RemoteBackend implements SandboxBackend {
  readonly nodeId: string;

  constructor(private readonly link: NodeLink) {
    this.nodeId = link.nodeId;
  }

  /** The posture from the node's latest heartbeat (fresh within one heartbeat); asked of the node when none came yet. */
  async posture(): Promise<Posture> {
    if (this.link.posture) return this.link.posture;
    return (await this.json<Posture>("GET", "/posture", { timeoutMs: this.link.timeouts.requestMs })).body;
  }

  run(spec: RunSpec, io: RunIO = {}): Promise<RunResult> {
    return this.execution("/run", spec, io);
  }

  exec(ws: WorkspaceRef, spec: RunSpec, io: RunIO = {}): Promise<RunResult> {
    return this.execution(`/workspaces/${encodeURIComponent(ws.id)}/exec`, spec, io);
  }

  async createWorkspace(input: CreateWorkspaceInput = {}): Promise<WorkspaceRef> {
    const body: Record<string, unknown> = {};
    if (input.quotaBytes !== undefined) body.quota_bytes = input.quotaBytes;
    if (input.fromSnapshot !== undefined) body.from_snapshot = input.fromSnapshot;
    // Restoring a snapshot unpacks a whole archive: it gets the snapshot timeout, and its time says nothing of the link.
    const restoring = input.fromSnapshot !== undefined;
    const { body: answer } = await this.json<{ id: unknown }>("POST", "/workspaces", {
      json: body,
      timeoutMs: restoring ? this.link.timeouts.snapshotMs : this.link.timeouts.requestMs,
      overhead: !restoring,
    });
    if (typeof answer.id !== "string" || !answer.id) throw this.unavailable("answered a workspace without an id");
    return { id: answer.id };
  }

  async removeWorkspace(ws: WorkspaceRef): Promise<void> {
    await this.empty("DELETE", `/workspaces/${encodeURIComponent(ws.id)}`, { timeoutMs: this.link.timeouts.requestMs });
  }

  async readFile(ws: WorkspaceRef, path: string): Promise<Uint8Array> {
    const started = performance.now();
    const res = await this.call("GET", `/workspaces/${encodeURIComponent(ws.id)}/file?path=${encodeURIComponent(path)}`, { timeoutMs: this.link.timeouts.requestMs });
    try {
      const bytes = new Uint8Array(await res.arrayBuffer());
      this.link.outcome(true, performance.now() - started);
      return bytes;
    } catch (err) {
      throw this.failed(`the file's bytes did not arrive (${describe(err)})`);
    }
  }

  async writeFile(ws: WorkspaceRef, path: string, data: Uint8Array): Promise<void> {
    if (data.byteLength > MAX_FILE_WRITE_BYTES) {
      throw new ApiError(413, "payload_too_large", `file is ${data.byteLength} bytes; the limit is ${MAX_FILE_WRITE_BYTES} bytes`, { limit_bytes: MAX_FILE_WRITE_BYTES });
    }
    await this.empty("PUT", `/workspaces/${encodeURIComponent(ws.id)}/file?path=${encodeURIComponent(path)}`, {
      body: data,
      timeoutMs: this.link.timeouts.requestMs,
    });
  }

  async listFiles(ws: WorkspaceRef, path?: string): Promise<DirEntry[]> {
    const query = path === undefined ? "" : `?path=${encodeURIComponent(path)}`;
    const { body } = await this.json<DirEntry[]>("GET", `/workspaces/${encodeURIComponent(ws.id)}/files${query}`, { timeoutMs: this.link.timeouts.requestMs });
    if (!Array.isArray(body)) throw this.failed("answered a listing that is not an array");
    return body;
  }

  async snapshot(ws: WorkspaceRef, snapshotId: string): Promise<{ bytes: number }> {
    this.link.begin();
    try {
      const { body } = await this.json<{ bytes: unknown }>("POST", `/workspaces/${encodeURIComponent(ws.id)}/snapshots/${encodeURIComponent(snapshotId)}`, {
        timeoutMs: this.link.timeouts.snapshotMs,
        overhead: false,
      });
      if (typeof body.bytes !== "number") throw this.failed("answered a snapshot without its size");
      return { bytes: body.bytes };
    } finally {
      this.link.end();
    }
  }

  async deleteSnapshot(snapshotId: string): Promise<void> {
    await this.empty("DELETE", `/snapshots/${encodeURIComponent(snapshotId)}`, { timeoutMs: this.link.timeouts.requestMs });
  }

  // -------------------------------------------------------------------------------------------

  private runTimeoutMs(spec: RunSpec): number {
    const own = spec.timeoutMs ?? spec.limits?.timeoutMs ?? this.link.posture?.limits?.defaults?.timeout_ms ?? FALLBACK_RUN_TIMEOUT_MS;
    return own + this.link.timeouts.runGraceMs;
  }

  /** A run or exec: NDJSON frames relayed to io as they come, then the result. */
  private async execution(path: string, spec: RunSpec, io: RunIO): Promise<RunResult> {
    const streaming = Boolean(io.onStdout || io.onStderr);
    const started = performance.now();
    const out: Uint8Array[] = [];
    const err: Uint8Array[] = [];
    this.link.begin();
    try {
      const res = await this.call("POST", `${path}${streaming ? "?stream=1" : ""}`, { json: toWire(spec), timeoutMs: this.runTimeoutMs(spec), signal: io.signal });
      let final: Frame | null = null;
      try {
        for await (const frame of frames(res)) {
          if (frame.t === "out") {
            const chunk = b64(frame.d);
            out.push(chunk);
            io.onStdout?.(chunk);
          } else if (frame.t === "err") {
            const chunk = b64(frame.d);
            err.push(chunk);
            io.onStderr?.(chunk);
          } else if (frame.t === "result" || frame.t === "error") {
            final = frame;
            break;
          }
        }
      } catch (e) {
        if (io.signal?.aborted) return abortedResult(out, err, started);
        if (e instanceof NonsenseFrame) throw this.failed(e.message);
        throw this.failed(`the run's answer broke off (${describe(e)})`);
      }
      if (final === null) {
        if (io.signal?.aborted) return abortedResult(out, err, started);
        throw this.failed("the node's answer ended before the run finished");
      }
      if (final.t === "error") throw this.nodeError(final.status, final.error, performance.now() - started);
      const result = final.t === "result" ? final.result : null;
      if (!result || typeof result !== "object" || typeof result.status !== "string") throw this.failed("answered a run without a result");
      this.link.outcome(true, performance.now() - started - (typeof result.duration_ms === "number" ? result.duration_ms : 0));
      return result;
    } catch (e) {
      if (io.signal?.aborted && !(e instanceof ApiError)) return abortedResult(out, err, started);
      throw e;
    } finally {
      this.link.end();
    }
  }

  private async json<T>(method: string, path: string, options: CallOptions & { overhead?: boolean }): Promise<{ body: T; status: number }> {
    const started = performance.now();
    const res = await this.call(method, path, options);
    let body: T;
    try {
      body = (await res.json()) as T;
    } catch {
      throw this.failed("answered something that is not JSON");
    }
    this.link.outcome(true, options.overhead === false ? null : performance.now() - started);
    return { body, status: res.status };
  }

  private async empty(method: string, path: string, options: CallOptions): Promise<void> {
    const started = performance.now();
    const res = await this.call(method, path, options);
    await res.body?.cancel().catch(() => {});
    this.link.outcome(true, performance.now() - started);
  }

  /**
   * One request to the node. Resolves with a 2xx response; every other outcome throws (and is
   * reported): BackendUnavailable when the node cannot be used, its ApiError when it refused.
   */
  private async call(method: string, path: string, options: CallOptions): Promise<Response> {
    const started = performance.now();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { authorization: `Bearer ${this.link.secret}` };
    let body: Uint8Array | string | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    } else if (body !== undefined) headers["content-type"] = "application/octet-stream";
    let res: Response;
    try {
      res = await fetch(`${this.link.endpoint}${NODE_API}${path}`, { method, headers, body, signal, redirect: "manual" });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw this.failed(timeout.aborted ? `no answer within ${Math.round(options.timeoutMs / 1000)} s` : describe(err));
    }
    if (res.status >= 200 && res.status < 300) return res;
    if (res.status === 401) {
      await res.body?.cancel().catch(() => {});
      throw this.failed("it refused the gateway's dispatch credential (a node that restarted sends its new one in its next heartbeat)");
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw this.failed(`it answered a redirect (${res.status}); a node agent never redirects`);
    }
    let error: { type?: unknown; message?: unknown } & Record<string, unknown> = {};
    try {
      const parsed = (await res.json()) as { error?: typeof error };
      if (parsed && typeof parsed.error === "object" && parsed.error) error = parsed.error;
    } catch {
      // no error body: the status says enough
    }
    throw this.nodeError(res.status, error, performance.now() - started);
  }

  /** An error the node answered: the caller's (4xx, the call itself worked) or the node's runner's (5xx). */
  private nodeError(status: number, error: Record<string, unknown>, elapsedMs: number): ApiError {
    const { type, message, ...extra } = error;
    const text = typeof message === "string" ? message : `the node answered ${status}`;
    if (status >= 400 && status < 500) {
      this.link.outcome(true, elapsedMs);
      return new ApiError(status, typeof type === "string" ? type : "invalid_request", text, extra);
    }
    this.link.outcome(false, null);
    return new ApiError(503, "sandbox_failed", `the sandbox on node ${this.nodeId} failed: ${text}`, { node_id: this.nodeId });
  }

  /** Reports a failed call and makes the error that says the node cannot be used. */
  private failed(reason: string): BackendUnavailable {
    this.link.outcome(false, null);
    return this.unavailable(reason);
  }

  private unavailable(reason: string): BackendUnavailable {
    return new BackendUnavailable(this.nodeId, reason);
  }
}

class NonsenseFrame extends Error {}

/** NDJSON frames of a response body, one per line; a line that is not a frame throws NonsenseFrame. */
async function* frames(res: Response): AsyncGenerator<Frame> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (!line) continue;
      let frame: Frame;
      try {
        frame = JSON.parse(line) as Frame;
      } catch {
        throw new NonsenseFrame("answered a line that is not JSON");
      }
      if (!frame || typeof frame !== "object" || typeof frame.t !== "string") throw new NonsenseFrame("answered a line that is not a frame");
      if ((frame.t === "out" || frame.t === "err") && typeof frame.d !== "string") throw new NonsenseFrame("answered an output frame without data");
      yield frame;
    }
  }
}

/** What the gateway's runner answers for a run its caller aborted, with the output seen so far. */
function abortedResult(out: Uint8Array[], err: Uint8Array[], started: number): RunResult {
  const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));
  return {
    status: "killed",
    exit_code: null,
    signal: "SIGKILL",
    stdout: text(out),
    stderr: text(err),
    stdout_truncated: false,
    stderr_truncated: false,
    timed_out: false,
    killed_reason: "aborted",
    duration_ms: Math.round(performance.now() - started),
    cpu_ms: null,
    memory_peak_bytes: null,
    oom_killed: false,
    error: null,
  };
}

/** A network failure in a few words, from its code (messages can carry the URL). */
function describe(err: unknown): string {
  const code = String((err as { code?: unknown }).code ?? "");
  if ((err as { name?: string }).name === "TimeoutError") return "timed out";
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return "connection refused";
  if (code === "ECONNRESET" || code === "ConnectionClosed") return "connection reset";
  if (code === "ENOTFOUND") return "host not found";
  if (/CERT|TLS|SSL/i.test(code)) return `TLS error (${code})`;
  return code ? `network error (${code})` : "network error";
}
