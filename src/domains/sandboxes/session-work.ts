/**
 * What runs in a live session: execs (each a fresh sandbox over the session's /workspace —
 * files persist between execs, processes do not) and the files API. Every call first finds
 * the caller's session (404 otherwise), refuses a stopped one (409 session_stopped), and goes
 * to the backend that holds the workspace; a node that cannot be reached stops the session
 * with node_unreachable. Each exec is metered and receipted like a one-shot (execution.ts).
 */
import { ApiError, invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { BackendUnavailable, type SandboxBackend } from "./backend.ts";
import { backendOf } from "./dispatch.ts";
import { asApiError, sessionStopped } from "./errors.ts";
import { type ExecutionRequest, reserveExecution, runReserved } from "./execution.ts";
import { abandonIdempotent, startIdempotent } from "./idempotency.ts";
import { answerRun, limitsFor, replayRun, timeoutOf } from "./oneshot.ts";
import { type DirEntry, type LanguageName, MAX_FILE_WRITE_BYTES, type RunSpec } from "./runner/index.ts";
import { ownedSession, type Principal, type SessionRow, sessionRow, stopSession, touchSession, workspaceOf } from "./sessions.ts";

export interface ExecInput {
  command?: string | string[];
  code?: string;
  language?: LanguageName;
  args?: string[];
  stdin?: string;
  env?: Record<string, string>;
  timeout_ms?: number;
  stream?: boolean;
  svc_run_id?: string;
}

function liveSession(ctx: Context, accountId: string, id: string): SessionRow {
  const row = ownedSession(ctx, accountId, id);
  if (row.status !== "live") throw sessionStopped(id, row.stop_reason);
  return row;
}

/** Runs `op` on the session's backend; a backend that is gone stops the session (node_unreachable). */
async function onBackend<T>(ctx: Context, row: SessionRow, op: (backend: SandboxBackend) => Promise<T>): Promise<T> {
  try {
    return await op(await backendOf(ctx, row.node_id));
  } catch (err) {
    if (err instanceof BackendUnavailable) stopSession(ctx, row.id, "node_unreachable");
    throw asApiError(err);
  }
}

function execSpec(input: ExecInput, language: LanguageName | null, timeoutMs: number): RunSpec {
  const common = { stdin: input.stdin, env: input.env, timeoutMs, limits: limitsFor(timeoutMs) };
  if ((input.command === undefined) === (input.code === undefined)) {
    throw invalidField(input.command === undefined ? "code" : "command", "give exactly one of command and code");
  }
  if (input.code !== undefined) {
    if (!language) throw invalidField("language", "is required with code (the session was created without one)");
    return { ...common, language, code: input.code, args: input.args };
  }
  if (input.args !== undefined) throw invalidField("args", "goes with code; put a command's arguments in command");
  const command = typeof input.command === "string" ? ["/bin/sh", "-c", input.command] : input.command!;
  return { ...common, ...(language ? { language } : {}), command };
}

/** POST /v1/sandboxes/sessions/:id/exec */
export async function execInSession(ctx: Context, principal: Principal, id: string, input: ExecInput, idempotencyKey: string | undefined, clientSignal: AbortSignal): Promise<Response> {
  const row = ownedSession(ctx, principal.accountId, id);
  const timeoutMs = timeoutOf(ctx, input.timeout_ms);
  const language = input.language ?? (input.code !== undefined ? row.language : null);
  const spec = execSpec(input, language, timeoutMs);
  // A repeat gets its first result even once the session has stopped.
  const start = startIdempotent(ctx, principal.accountId, idempotencyKey, `POST /v1/sandboxes/sessions/${id}/exec`, input);
  if (start && "replay" in start) return replayRun(start.replay, input.stream === true);
  const claim = start?.claim ?? null;
  let req: ExecutionRequest;
  let reservation;
  try {
    liveSession(ctx, principal.accountId, id);
    const backend = await onBackend(ctx, row, async (b) => b);
    req = {
      accountId: principal.accountId,
      keyId: principal.keyId,
      language,
      spec,
      timeoutMs,
      runId: input.svc_run_id ?? row.run_id,
      session: { id, ws: workspaceOf(row) },
      backend,
    };
    reservation = await reserveExecution(ctx, req);
  } catch (err) {
    abandonIdempotent(ctx, claim);
    throw err;
  }
  const r = reservation;
  touchSession(ctx, id);
  return answerRun(ctx, req, claim, input.stream === true, clientSignal, (io, clientGone) => {
    // A stop aborts the execs in flight: the run is killed and billed for the time it ran.
    const stop = new AbortController();
    const signal = io.signal ? AbortSignal.any([io.signal, stop.signal]) : stop.signal;
    const cause = () => (clientGone() ? "client_disconnected" : stop.signal.aborted ? "session_stopped" : null);
    const running = runReserved(ctx, req, r, { ...io, signal }, cause).catch((err: unknown) => {
      if (err instanceof ApiError && err.type === "sandbox_unavailable") stopSession(ctx, id, "node_unreachable");
      throw err;
    });
    ctx.sandboxes.track(id, stop, running);
    // Stopped between the check above and now: this exec stops too.
    if (sessionRow(ctx, id)?.status !== "live") stop.abort();
    return running;
  });
}

// ───────────────────────────── files ─────────────────────────────

/** The wildcard of /files/*path, percent-decoded (an undecodable one is a bad path). */
export function filePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, "invalid_path", `${JSON.stringify(raw)}: is not a valid percent-encoded path`, { param: "path" });
  }
}

export async function readSessionFile(ctx: Context, accountId: string, id: string, path: string): Promise<Uint8Array> {
  const row = liveSession(ctx, accountId, id);
  touchSession(ctx, id);
  return onBackend(ctx, row, (b) => b.readFile(workspaceOf(row), path));
}

export async function writeSessionFile(ctx: Context, accountId: string, id: string, path: string, data: Uint8Array): Promise<{ path: string; bytes: number }> {
  const row = liveSession(ctx, accountId, id);
  if (data.byteLength > MAX_FILE_WRITE_BYTES) {
    throw new ApiError(413, "payload_too_large", `a file written to a sandbox workspace is at most ${MAX_FILE_WRITE_BYTES} bytes (8 MiB); this one is ${data.byteLength} bytes`, {
      limit_bytes: MAX_FILE_WRITE_BYTES,
    });
  }
  touchSession(ctx, id);
  await onBackend(ctx, row, (b) => b.writeFile(workspaceOf(row), path, data));
  return { path, bytes: data.byteLength };
}

export async function listSessionFiles(ctx: Context, accountId: string, id: string, path = ""): Promise<{ path: string; entries: DirEntry[] }> {
  const row = liveSession(ctx, accountId, id);
  touchSession(ctx, id);
  return { path, entries: await onBackend(ctx, row, (b) => b.listFiles(workspaceOf(row), path)) };
}

export { liveSession };
