/**
 * The node agent's HTTP API (protocol.ts): the SandboxBackend operations over a local runner,
 * for the gateway only. Every /v1/node route checks `Authorization: Bearer <dispatch secret>`
 * (compared by sha256 in constant time) before anything else; /healthz answers anyone.
 *
 * Workspaces live under <data dir>/workspaces (the runner's root, named ws-…), their quotas in
 * <data dir>/meta/<ws>.json (so a restarted agent keeps them), snapshots in
 * <data dir>/snapshots/<id>.tar.gz. Errors are the gateway's error body with the status the
 * gateway would answer: the runner's own (400 invalid_request / invalid_path, 404, 413
 * payload_too_large / workspace_quota_exceeded, 503 sandbox_failed), 401 for a wrong credential,
 * 500 internal_error (logged with a reference) for anything else.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { ApiError } from "../../../core/errors.ts";
import { newId } from "../../../core/ids.ts";
import type { Logger } from "../../../core/log.ts";
import { digestsEqual, sha256Hex } from "../../../core/secrets.ts";
import type { RunIO, RunResult, Runner, RunSpec } from "../../sandboxes/index.ts";
import { type CreateWorkspaceBody, type Frame, fromWire, MAX_FILE_WRITE_BYTES, NODE_API, SNAPSHOT_ID, type WireSpec, WORKSPACE_ID } from "../protocol.ts";

/** A quiet run sends a ping this often, so no proxy or idle timer closes its connection. */
export const PING_MS = 5_000;

/** The largest request body the agent reads: a run's JSON (code and files) or one file. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

export interface AgentOptions {
  runner: Runner;
  dataDir: string;
  /** The dispatch secret the gateway must present. */
  secret: string;
  log: Logger;
}

export interface AgentPaths {
  workspaces: string;
  meta: string;
  snapshots: string;
  staging: string;
}

export const agentPaths = (dataDir: string): AgentPaths => ({
  workspaces: join(dataDir, "workspaces"),
  meta: join(dataDir, "meta"),
  snapshots: join(dataDir, "snapshots"),
  staging: join(dataDir, "staging"),
});

const json = (body: unknown, status = 200): Response => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const fail = (status: number, type: string, message: string, extra: Record<string, unknown> = {}): ApiError => new ApiError(status, type, message, extra);

const notFound = (what: string) => fail(404, "not_found", `${what} not found`);

/** The gateway's error body for anything thrown: ApiErrors and the runner's SandboxErrors as they are, the rest as 500. */
function errorBody(err: unknown, log: Logger): { status: number; error: { type: string; message: string } & Record<string, unknown> } {
  if (err instanceof ApiError) return { status: err.status, error: err.body().error as { type: string; message: string } };
  // The runner's SandboxError (and subclasses) carry their HTTP status and type.
  const e = err as { status?: unknown; type?: unknown; message?: unknown; param?: unknown; limitBytes?: unknown; quotaBytes?: unknown };
  if (err instanceof Error && typeof e.status === "number" && typeof e.type === "string") {
    const extra: Record<string, unknown> = {};
    if (typeof e.param === "string") extra.param = e.param;
    if (typeof e.limitBytes === "number") extra.limit_bytes = e.limitBytes;
    if (typeof e.quotaBytes === "number") extra.quota_bytes = e.quotaBytes;
    return { status: e.status, error: { type: e.type, message: err.message, ...extra } };
  }
  const reference = newId("err");
  log.error("node agent: unhandled error", { reference, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  return { status: 500, error: { type: "internal_error", message: `the node agent failed (reference ${reference})`, reference } };
}

/** Reads a JSON object body (400 invalid_json / invalid_body otherwise). */
async function objectBody<T>(req: Request): Promise<T> {
  const text = await req.text();
  if (text === "") return {} as T;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fail(400, "invalid_json", "the body is not valid JSON");
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw fail(400, "invalid_body", "body: must be a JSON object");
  return value as T;
}

export function createAgentHandler(options: AgentOptions): (req: Request) => Promise<Response> {
  const { runner, log } = options;
  const paths = agentPaths(options.dataDir);
  const secretSha = sha256Hex(options.secret);
  const quotas = new Map<string, number>();

  const authorized = (req: Request): boolean => {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
    return m !== null && digestsEqual(sha256Hex(m[1]!), secretSha);
  };

  const workspaceDir = (id: string): string => {
    if (!WORKSPACE_ID.test(id)) throw notFound("workspace");
    const dir = join(paths.workspaces, id);
    if (!existsSync(dir)) throw notFound("workspace");
    return dir;
  };

  const quotaOf = async (id: string): Promise<number> => {
    const known = quotas.get(id);
    if (known !== undefined) return known;
    try {
      const meta = JSON.parse(await readFile(join(paths.meta, `${id}.json`), "utf8")) as { quota_bytes?: unknown };
      if (typeof meta.quota_bytes === "number") {
        quotas.set(id, meta.quota_bytes);
        return meta.quota_bytes;
      }
    } catch {
      // no record: the runner's default
    }
    return runner.defaults.workspaceBytes;
  };

  const snapshotPath = (id: string): string => {
    if (!SNAPSHOT_ID.test(id)) throw fail(400, "invalid_request", "snapshot id: must be 1 to 128 letters, digits, _ or -", { param: "snapshot_id" });
    return join(paths.snapshots, `${id}.tar.gz`);
  };

  /** A run or exec answered as NDJSON frames (protocol.ts). */
  const execution = (req: Request, url: URL, start: (io: RunIO) => Promise<RunResult>): Response => {
    const stream = url.searchParams.get("stream") === "1";
    const abort = new AbortController();
    req.signal?.addEventListener("abort", () => abort.abort(), { once: true });
    const encoder = new TextEncoder();
    let open = true;
    let ping: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (frame: Frame) => {
          if (!open) return;
          try {
            controller.enqueue(encoder.encode(JSON.stringify(frame) + "\n"));
          } catch {
            open = false;
          }
        };
        // The node agent has no scheduler (no database): its only timers are this ping and the heartbeat.
        ping = setInterval(() => send({ t: "ping" }), PING_MS);
        const io: RunIO = { signal: abort.signal };
        if (stream) {
          io.onStdout = (chunk) => send({ t: "out", d: Buffer.from(chunk).toString("base64") });
          io.onStderr = (chunk) => send({ t: "err", d: Buffer.from(chunk).toString("base64") });
        }
        start(io)
          .then(
            (result) => send({ t: "result", result }),
            (err) => send({ t: "error", ...errorBody(err, log) }),
          )
          .finally(() => {
            clearInterval(ping);
            if (open) {
              open = false;
              try {
                controller.close();
              } catch {
                // the gateway went away
              }
            }
          });
      },
      cancel() {
        open = false;
        clearInterval(ping);
        abort.abort();
      },
    });
    return new Response(body, { headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
  };

  const routes: [method: string, pattern: RegExp, handler: (req: Request, url: URL, m: string[]) => Promise<Response> | Response][] = [
    ["GET", /^\/posture$/, () => json(runner.posture())],

    [
      "POST",
      /^\/run$/,
      async (req, url) => {
        const spec = fromWire(await objectBody<WireSpec>(req));
        return execution(req, url, (io) => runner.run(spec, io));
      },
    ],

    [
      "POST",
      /^\/workspaces$/,
      async (req) => {
        const body = await objectBody<CreateWorkspaceBody>(req);
        if (body.quota_bytes !== undefined && (typeof body.quota_bytes !== "number" || !Number.isSafeInteger(body.quota_bytes))) {
          throw fail(400, "invalid_request", "quota_bytes: must be an integer", { param: "quota_bytes" });
        }
        if (body.from_snapshot !== undefined && typeof body.from_snapshot !== "string") {
          throw fail(400, "invalid_request", "from_snapshot: must be a snapshot id", { param: "from_snapshot" });
        }
        const archive = body.from_snapshot === undefined ? null : snapshotPath(body.from_snapshot);
        if (archive && !existsSync(archive)) throw notFound("snapshot");
        const ws = await runner.createWorkspace(body.quota_bytes);
        const id = basename(ws.dir);
        try {
          if (archive) await runner.restore(archive, ws.dir);
          await writeFile(join(paths.meta, `${id}.json`), JSON.stringify({ quota_bytes: ws.quotaBytes }), { mode: 0o600 });
        } catch (err) {
          await runner.removeWorkspace(ws.dir).catch(() => {});
          throw err;
        }
        quotas.set(id, ws.quotaBytes);
        return json({ id }, 201);
      },
    ],

    [
      "DELETE",
      /^\/workspaces\/([^/]+)$/,
      async (_req, _url, [, id]) => {
        if (WORKSPACE_ID.test(id!) && existsSync(join(paths.workspaces, id!))) await runner.removeWorkspace(join(paths.workspaces, id!));
        await unlink(join(paths.meta, `${id}.json`)).catch(() => {});
        quotas.delete(id!);
        return new Response(null, { status: 204 });
      },
    ],

    [
      "POST",
      /^\/workspaces\/([^/]+)\/exec$/,
      async (req, url, [, id]) => {
        const dir = workspaceDir(id!);
        const spec: RunSpec = fromWire(await objectBody<WireSpec>(req));
        const quota = await quotaOf(id!);
        return execution(req, url, (io) => runner.run({ ...spec, workspaceDir: dir, limits: { workspaceBytes: quota, ...spec.limits } }, io));
      },
    ],

    [
      "GET",
      /^\/workspaces\/([^/]+)\/file$/,
      async (_req, url, [, id]) => {
        const dir = workspaceDir(id!);
        const path = url.searchParams.get("path");
        if (path === null) throw fail(400, "invalid_request", "path: is required", { param: "path" });
        const bytes = await runner.files(dir, await quotaOf(id!)).read(path);
        return new Response(bytes, { headers: { "content-type": "application/octet-stream" } });
      },
    ],

    [
      "PUT",
      /^\/workspaces\/([^/]+)\/file$/,
      async (req, url, [, id]) => {
        const dir = workspaceDir(id!);
        const path = url.searchParams.get("path");
        if (path === null) throw fail(400, "invalid_request", "path: is required", { param: "path" });
        const declared = Number(req.headers.get("content-length") ?? "0");
        if (declared > MAX_FILE_WRITE_BYTES) {
          throw fail(413, "payload_too_large", `file is ${declared} bytes; the limit is ${MAX_FILE_WRITE_BYTES} bytes`, { limit_bytes: MAX_FILE_WRITE_BYTES });
        }
        const data = new Uint8Array(await req.arrayBuffer());
        await runner.files(dir, await quotaOf(id!)).write(path, data);
        return new Response(null, { status: 204 });
      },
    ],

    [
      "GET",
      /^\/workspaces\/([^/]+)\/files$/,
      async (_req, url, [, id]) => {
        const dir = workspaceDir(id!);
        return json(await runner.files(dir, await quotaOf(id!)).list(url.searchParams.get("path") ?? undefined));
      },
    ],

    [
      "POST",
      /^\/workspaces\/([^/]+)\/snapshots\/([^/]+)$/,
      async (_req, _url, [, id, snap]) => {
        const dir = workspaceDir(id!);
        const archive = snapshotPath(decodeURIComponent(snap!));
        if (existsSync(archive)) throw fail(409, "snapshot_exists", "a snapshot with this id already exists on this node");
        try {
          return json(await runner.snapshot(dir, archive), 201);
        } catch (err) {
          await rm(archive, { force: true });
          throw err;
        }
      },
    ],

    [
      "DELETE",
      /^\/snapshots\/([^/]+)$/,
      async (_req, _url, [, snap]) => {
        await rm(snapshotPath(decodeURIComponent(snap!)), { force: true });
        return new Response(null, { status: 204 });
      },
    ],
  ];

  return async (req) => {
    const url = new URL(req.url);
    try {
      if (url.pathname === "/healthz") {
        if (req.method !== "GET" && req.method !== "HEAD") throw fail(405, "method_not_allowed", "GET /healthz");
        return new Response("ok", { headers: { "content-type": "text/plain" } });
      }
      if (!url.pathname.startsWith(`${NODE_API}/`)) throw fail(404, "not_found", "no such route on a node agent");
      // The credential first: a caller without it learns nothing, not even which routes exist.
      if (!authorized(req)) {
        return new Response(JSON.stringify({ error: { type: "invalid_dispatch_secret", message: "this node takes requests from its gateway only" } }), {
          status: 401,
          headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="svc-node"' },
        });
      }
      const rest = url.pathname.slice(NODE_API.length);
      let pathMatched = false;
      for (const [method, pattern, handler] of routes) {
        const m = pattern.exec(rest);
        if (!m) continue;
        pathMatched = true;
        if (method === req.method) return await handler(req, url, [...m].map((s) => s ?? ""));
      }
      throw pathMatched ? fail(405, "method_not_allowed", "this route does not take that method") : fail(404, "not_found", "no such route on a node agent");
    } catch (err) {
      const { status, error } = errorBody(err, log);
      return json({ error }, status);
    }
  };
}

/** Makes the agent's directories (0711: a root agent's sandbox uid must pass through to the workspaces). */
export async function prepareDataDir(dataDir: string): Promise<AgentPaths> {
  const paths = agentPaths(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o711 });
  await mkdir(paths.meta, { recursive: true, mode: 0o700 });
  await mkdir(paths.snapshots, { recursive: true, mode: 0o700 });
  return paths;
}
