/**
 * /v1/sandboxes/* (spec §4.3), API key with the "sandboxes" scope: one-shot runs, sessions
 * (exec, files, snapshot, stop) and snapshots. Thin: each route checks its input against a
 * schema (models.ts), calls one service function and shapes the answer. Rules and reasons:
 * oneshot.ts, sessions.ts, session-work.ts, snapshots.ts, docs/sandboxes.md.
 *
 * Literal segments first: /sessions and /snapshots never collide with an id.
 */
import { Elysia, t } from "elysia";
import { rawBody } from "../../core/body.ts";
import { bareArray } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { oneShot } from "./oneshot.ts";
import { execInSession, filePath, listSessionFiles, readSessionFile, writeSessionFile } from "./session-work.ts";
import { createSession, deleteSession, listSessions, ownedSession, sessionView } from "./sessions.ts";
import { deleteSnapshot, getSnapshot, listSnapshots, snapshotSession } from "./snapshots.ts";

const tags = ["sandboxes"];
const security = [{ apiKey: [] }];
const doc = (summary: string, extra: Record<string, unknown> = {}) => ({ detail: { summary, tags, security, ...extra } });
const IDEMPOTENCY_HEADER = "idempotency-key";

const writeFileHooks = {
  // Any bytes: the route reads the raw body, whatever the content type says it is. (The parser
  // named here only tells the OpenAPI generator the media type; the app's body hook has read
  // and kept the bytes before it.)
  body: t.Unknown({ description: "the file's bytes" }),
  parse: "application/octet-stream" as const,
  ...doc("Write a workspace file from the raw body (at most 8 MiB; one byte more is 413)", { requestBody: M.RawFileBody, responses: M.FileWrittenResponses }),
};

export function sandboxRoutes(ctx: Context) {
  const readFile = async (accountId: string, id: string, path: string) =>
    new Response(await readSessionFile(ctx, accountId, id, path), { headers: { "content-type": "application/octet-stream" } });
  return (
    new Elysia({ prefix: "/v1/sandboxes" })
      .use(guards.apiKey(ctx, "sandboxes"))

      // One-shot runs.
      .post("", ({ principal, body, headers, request }) => oneShot(ctx, principal, body, headers[IDEMPOTENCY_HEADER], request.signal), {
        body: M.RunBody,
        ...doc("Run code once in a fresh sandbox (stream: true for SSE; Idempotency-Key returns the first result again, billed once)", { responses: M.RunResponses }),
      })

      // Sessions.
      .post("/sessions", ({ principal, body, headers }) => createSession(ctx, principal, body, headers[IDEMPOTENCY_HEADER]), {
        body: M.SessionBody,
        response: { 201: M.Session, ...M.SessionErrors },
        ...doc("Start a session: a workspace whose files persist between execs (Idempotency-Key accepted)"),
      })
      .get("/sessions", ({ principal }) => bareArray(listSessions(ctx, principal.accountId)), {
        response: { 200: t.Array(M.Session) },
        ...doc("The account's sessions, newest first (at most 100)"),
      })
      .get("/sessions/:id", ({ principal, params }) => sessionView(ctx, ownedSession(ctx, principal.accountId, params.id)), {
        params: M.SessionParams,
        response: { 200: M.Session },
        ...doc("One session: status, alive seconds, exec count, cost, node"),
      })
      .delete("/sessions/:id", ({ principal, params }) => deleteSession(ctx, principal.accountId, params.id), {
        params: M.SessionParams,
        response: { 200: M.Session },
        ...doc("Stop a session (idempotent: a stopped session answers as it is)"),
      })
      .post(
        "/sessions/:id/exec",
        ({ principal, params, body, headers, request }) => execInSession(ctx, principal, params.id, body, headers[IDEMPOTENCY_HEADER], request.signal),
        {
          params: M.SessionParams,
          body: M.ExecBody,
          ...doc("Run a command or code in a fresh sandbox over the session's /workspace (stream: true for SSE; signed receipt per exec)", { responses: M.ExecResponses }),
        },
      )
      .get(
        "/sessions/:id/files",
        async ({ principal, params, query }) => listSessionFiles(ctx, principal.accountId, params.id, query.path),
        { params: M.SessionParams, query: M.ListFilesQuery, response: { 200: M.FileListing, ...errors(409, 503) }, ...doc("List a directory of the workspace (?path=, default the workspace itself)") },
      )
      // Files: the spec's files/*path, a path of any depth (the document's {path}).
      .get("/sessions/:id/files/*", ({ principal, params }) => readFile(principal.accountId, params.id, filePath(params["*"])), {
        params: M.FileParams,
        ...doc("Read a workspace file (raw bytes) at a path of any depth; symlinks are never followed", { responses: M.RawFile }),
      })
      .put("/sessions/:id/files/*", ({ principal, params, request }) => writeSessionFile(ctx, principal.accountId, params.id, filePath(params["*"]), rawBody(request)), {
        params: M.FileParams,
        ...writeFileHooks,
      })
      .post("/sessions/:id/snapshot", async ({ principal, params, set }) => {
        set.status = 201;
        return snapshotSession(ctx, principal.accountId, params.id);
      }, {
        params: M.SessionParams,
        response: { 201: M.Snapshot, ...errors(409, 503) },
        ...doc("Archive the workspace as a snapshot (kept on the backend that runs the session)"),
      })

      // Snapshots.
      .get("/snapshots", ({ principal }) => bareArray(listSnapshots(ctx, principal.accountId)), {
        response: { 200: t.Array(M.Snapshot) },
        ...doc("The account's snapshots, newest first (at most 100)"),
      })
      .get("/snapshots/:id", ({ principal, params }) => getSnapshot(ctx, principal.accountId, params.id), {
        params: M.SessionParams,
        response: { 200: M.Snapshot },
        ...doc("One snapshot's metadata"),
      })
      .delete("/snapshots/:id", ({ principal, params }) => deleteSnapshot(ctx, principal.accountId, params.id), {
        params: M.SessionParams,
        response: { 200: M.SnapshotDeleted },
        ...doc("Delete a snapshot (its archive, where it is kept)"),
      })
  );
}
