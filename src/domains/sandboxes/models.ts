/**
 * TypeBox models of the sandbox routes (docs/sandboxes.md): closed request bodies (an unknown
 * field is refused and named) and the exact shapes served, so the OpenAPI document describes
 * what is served. Runs answered with stream: true are text/event-stream (declared beside the
 * JSON through detail.responses); file reads are raw bytes.
 */
import { type DocumentDecoration, t, type TSchema } from "elysia";
import { errors, Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { LANGUAGE_NAMES, MAX_FILE_WRITE_BYTES } from "./runner/index.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

/** svc_run_id: as on the inference routes (1-128 characters, no control characters). */
export const MAX_RUN_ID_CHARS = 128;
export const LIST_CAP = 100;

const Language = t.Union([t.Literal("python"), t.Literal("javascript"), t.Literal("bash")], {
  error: `must be one of ${LANGUAGE_NAMES.join(", ")}`, description: LANGUAGE_NAMES.join(", "),
});
const RunId = t.String({
  minLength: 1,
  maxLength: MAX_RUN_ID_CHARS,
  pattern: "^[^\\u0000-\\u001f\\u007f]*$",
  error: `must be a string of 1-${MAX_RUN_ID_CHARS} characters without control characters`,
  description: "chain the receipt into this run (GET /v1/runs/:id); echoed in x-svc-run-id",
});
const Code = t.String({ maxLength: 4 * 1024 * 1024, error: "must be a string of at most 4 MiB", description: "the program text, run from a read-only file outside /workspace" });
const Stdin = t.String({ maxLength: 16 * 1024 * 1024, error: "must be a string of at most 16 MiB" });
const Args = t.Array(t.String({ maxLength: 100_000 }), { maxItems: 1024, error: "must be an array of at most 1024 strings", description: "argv after the program file" });
const Env = t.Record(t.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]{0,127}$" }), t.String({ maxLength: 32 * 1024 }), {
  error: "must be an object of NAME: string (no LD_* names)",
  description: "environment variables added to a fixed base (PATH, HOME=/tmp, LANG, …)",
});
const Files = t.Record(t.String({ minLength: 1, maxLength: 4096 }), t.String(), {
  error: "must be an object of relative path: UTF-8 content",
  description: "files written to /workspace first: relative path → UTF-8 content",
});
const TimeoutMs = Int({ minimum: 1, maximum: 15 * 60_000, error: "must be a whole number of milliseconds", description: "wall-time limit (default and maximum: sandboxes.default_timeout_ms, sandboxes.max_timeout_ms)" });
const Stream = t.Boolean({ description: "true: answer text/event-stream (stdout and stderr events, then exit)" });

// ───────────────────────────── requests ─────────────────────────────

export const RunBody = t.Object(
  {
    language: Language,
    code: Code,
    stdin: t.Optional(Stdin),
    args: t.Optional(Args),
    env: t.Optional(Env),
    files: t.Optional(Files),
    timeout_ms: t.Optional(TimeoutMs),
    stream: t.Optional(Stream),
    svc_run_id: t.Optional(RunId),
  },
  { ...closed, description: "A one-shot run in a fresh sandbox whose workspace vanishes after it" },
);

export const SessionBody = t.Object(
  {
    language: t.Optional(Language),
    idle_timeout_s: t.Optional(Int({ minimum: 10, maximum: 30 * 86_400, description: "stop after this long without a command (default and maximum: config)" })),
    max_lifetime_s: t.Optional(Int({ minimum: 60, maximum: 30 * 86_400, description: "stop this long after creation (default and maximum: config)" })),
    snapshot_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "start from this snapshot's files (on the backend that holds it)" })),
    svc_run_id: t.Optional(RunId),
  },
  closed,
);

export const ExecBody = t.Object(
  {
    command: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 100_000 }), t.Array(t.String({ maxLength: 100_000 }), { minItems: 1, maxItems: 1024 })], {
        error: "must be a shell command string or a non-empty argv array",
        description: "a string runs under /bin/sh -c; an array runs as an argv",
      }),
    ),
    code: t.Optional(Code),
    language: t.Optional(Language),
    args: t.Optional(Args),
    stdin: t.Optional(Stdin),
    env: t.Optional(Env),
    timeout_ms: t.Optional(TimeoutMs),
    stream: t.Optional(Stream),
    svc_run_id: t.Optional(RunId),
  },
  { ...closed, description: "Give exactly one of command and code; a fresh sandbox runs it over the session's /workspace" },
);

export const TerminalBody = t.Object({ language: Language, code: t.String({ maxLength: 64 * 1024, error: "must be a string of at most 64 KiB" }), stdin: t.Optional(t.String({ maxLength: 64 * 1024 })) }, closed);

export const SessionParams = t.Object({ id: t.String({ maxLength: 100 }) });
export const FileParams = t.Object({ id: t.String({ maxLength: 100 }), "*": t.String({ maxLength: 8192 }) });
export const ListFilesQuery = t.Object({ path: t.Optional(t.String({ maxLength: 4096, description: "a directory relative to /workspace; absent: /workspace" })) }, closed);

// ───────────────────────────── responses ─────────────────────────────

export const ReceiptRef = t.Object(
  {
    id: t.String({ description: "rcpt_…" }),
    receipt: t.String({ description: "base64url canonical JSON payload" }),
    signature: t.String({ description: "EIP-191 signature, 0x-hex" }),
    signer: t.String({ description: "the signer's address" }),
  },
  { ...closed, description: "the signed receipt (also in the x-svc-receipt* headers)" },
);

const RunStatus = t.Union([t.Literal("ok"), t.Literal("error"), t.Literal("timeout"), t.Literal("killed")], {
  description: "ok: exit 0; error: the program failed; timeout: killed at timeout_ms; killed: stopped for a limit or an abort (killed_reason)",
});

export const RunResult = t.Object(
  {
    id: t.String({ description: "sbx_…" }),
    object: t.Literal("sandbox.run"),
    session_id: Nullable(t.String()),
    node_id: Nullable(t.String({ description: "null: the gateway ran it" })),
    language: Nullable(Language),
    status: RunStatus,
    exit_code: Int({ description: "the program's exit status; 128 + the signal number when it was killed" }),
    signal: Nullable(t.String()),
    stdout: t.String(),
    stderr: t.String(),
    truncated: t.Boolean({ description: "stdout_truncated or stderr_truncated" }),
    stdout_truncated: t.Boolean(),
    stderr_truncated: t.Boolean(),
    timed_out: t.Boolean(),
    killed_reason: Nullable(t.String({ description: "timeout, output_limit, memory_limit, cpu_limit, workspace_quota, aborted" })),
    duration_ms: Int({ minimum: 0 }),
    cost_micro_usd: MicroUsd(),
    run_id: Nullable(t.String()),
    receipt: Nullable(ReceiptRef),
    created_at: Time,
  },
  closed,
);

const StopReason = t.Union(
  [t.Literal("requested"), t.Literal("idle_timeout"), t.Literal("max_lifetime"), t.Literal("insufficient_credit"), t.Literal("node_unreachable")],
  { description: "requested, idle_timeout, max_lifetime, insufficient_credit or node_unreachable" },
);

export const Session = t.Object(
  {
    id: t.String({ description: "sbs_…" }),
    object: t.Literal("sandbox.session"),
    status: t.Union([t.Literal("live"), t.Literal("stopped")]),
    stop_reason: Nullable(StopReason),
    language: Nullable(Language),
    node_id: Nullable(t.String({ description: "null: the gateway runs it" })),
    snapshot_id: Nullable(t.String({ description: "the snapshot it started from" })),
    run_id: Nullable(t.String()),
    idle_timeout_s: Int({ minimum: 1 }),
    max_lifetime_s: Int({ minimum: 1 }),
    created_at: Time,
    last_active_at: Time,
    expires_at: Time,
    stopped_at: Nullable(Time),
    alive_seconds: Int({ minimum: 0 }),
    exec_count: Int({ minimum: 0 }),
    exec_cost_micro_usd: MicroUsd(),
    alive_cost_micro_usd: MicroUsd(),
    cost_micro_usd: MicroUsd({ description: "execs and alive time" }),
  },
  closed,
);

export const Snapshot = t.Object(
  {
    id: t.String({ description: "snap_…" }),
    object: t.Literal("sandbox.snapshot"),
    session_id: t.String(),
    node_id: Nullable(t.String({ description: "where the archive is kept; null: the gateway" })),
    bytes: Int({ minimum: 0 }),
    created_at: Time,
  },
  closed,
);

export const SnapshotDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

export const DirEntry = t.Object(
  { name: t.String(), type: t.Union([t.Literal("file"), t.Literal("directory"), t.Literal("symlink"), t.Literal("other")]), size: Int({ minimum: 0 }) },
  closed,
);
export const FileListing = t.Object({ path: t.String({ description: "relative to /workspace" }), entries: t.Array(DirEntry) }, closed);
export const FileWritten = t.Object({ path: t.String(), bytes: Int({ minimum: 0, maximum: MAX_FILE_WRITE_BYTES }) }, closed);

export const UsageRow = t.Object(
  {
    id: t.String({ description: "a session (sbs_…) or a one-shot run (sbx_…)" }),
    kind: t.Union([t.Literal("session"), t.Literal("one_shot")]),
    language: Nullable(Language),
    status: t.String({ description: "a session's live/stopped, or a run's status" }),
    node_id: Nullable(t.String()),
    created_at: Time,
    ended_at: Nullable(Time),
    alive_seconds: Nullable(Int({ minimum: 0, description: "sessions only" })),
    exec_count: Int({ minimum: 0 }),
    cost_micro_usd: MicroUsd(),
  },
  closed,
);

export const ExecRow = t.Object(
  {
    id: t.String(),
    language: Nullable(Language),
    status: t.String(),
    exit_code: Nullable(Int()),
    timed_out: t.Boolean(),
    duration_ms: Int({ minimum: 0 }),
    cost_micro_usd: MicroUsd(),
    receipt_id: Nullable(t.String()),
    run_id: Nullable(t.String()),
    created_at: Time,
  },
  closed,
);

export const UsageDetail = t.Object(
  {
    ...UsageRow.properties,
    exec_cost_micro_usd: MicroUsd(),
    alive_cost_micro_usd: MicroUsd(),
    execs: t.Array(ExecRow, { description: `newest first, at most ${LIST_CAP}` }),
  },
  closed,
);

export const TerminalResult = t.Object(
  {
    status: RunStatus,
    exit_code: Int(),
    stdout: t.String(),
    stderr: t.String(),
    truncated: t.Boolean(),
    timed_out: t.Boolean(),
    duration_ms: Int({ minimum: 0 }),
  },
  closed,
);

// ───────────────────────────── OpenAPI responses ─────────────────────────────

type OpenApiResponses = NonNullable<DocumentDecoration["responses"]>;
const asResponses = (responses: Record<number, unknown>): OpenApiResponses => responses as OpenApiResponses;

const RUN_ERRORS = {
  400: { description: "invalid_request (param names the field)" },
  402: { description: "insufficient_credit (with x402 terms), spend_cap_reached, circuit_breaker_tripped" },
  409: { description: "idempotency_key_in_progress: the first request with this Idempotency-Key has not finished" },
  413: { description: "payload_too_large, workspace_quota_exceeded" },
  422: { description: "idempotency_key_reused: the Idempotency-Key was first used with another request" },
  503: { description: "sandbox_failed (the sandbox itself failed; nothing billed), sandbox_unavailable (its node cannot be reached), no_sandbox_node (nothing can run it)" },
};

/** The 200 of a run: its JSON result, or with stream: true its event stream. */
const streamable = (reply: TSchema) => ({
  description: "The result (receipt in the body and the x-svc-receipt* headers), or with stream: true text/event-stream: stdout and stderr events ({data}), then exit (the result with its receipt)",
  content: { "application/json": { schema: reply }, "text/event-stream": { schema: { type: "string" } } },
});

export const RunResponses = asResponses({ 200: streamable(RunResult), ...RUN_ERRORS });
export const ExecResponses = asResponses({
  200: streamable(RunResult),
  ...RUN_ERRORS,
  409: { description: "session_stopped: a command against a stopped session; idempotency_key_in_progress" },
});

/** 404: snapshot_id names no snapshot of the caller's. */
export const SessionErrors = errors(402, 404, 409, 422, 503);

/**
 * The files/*path routes' whole OpenAPI entry, written out: the generator keeps Elysia's `*`
 * in the path key, which core/openapi.ts (it expects {path}) does not match, so neither the
 * baseline errors nor the request body are added for these two routes. Until it does, they are
 * declared here as core would: every error the one error body, by reference.
 */
const ERROR_REF = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const fileErrors = (extra: Record<number, string>) =>
  Object.fromEntries(
    Object.entries({
      400: "invalid_path (traversal, a symlink — never followed —, a directory), invalid_request",
      401: "No credential, or not a valid one for this route's class",
      402: "A refused X-PAYMENT proof",
      403: "missing_scope (sandboxes), account_suspended, key constraints",
      404: "Unknown, hidden or another tenant's session; no such file",
      409: "session_stopped",
      502: "A payment chain answered wrongly",
      503: "sandbox_unavailable: the node holding the workspace cannot be reached",
      ...extra,
    }).map(([status, description]) => [status, { description, ...ERROR_REF }]),
  );

export const RawFile = asResponses({
  200: { description: "The file's bytes", content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
  ...fileErrors({}),
});

export const FileWrittenResponses = asResponses({
  200: { description: "Written", content: { "application/json": { schema: FileWritten } } },
  ...fileErrors({ 413: "payload_too_large: more than 8 MiB (8388608 bytes); workspace_quota_exceeded" }),
});

export const RawFileBody = {
  required: true,
  description: `The file's bytes (at most ${MAX_FILE_WRITE_BYTES}, 8 MiB); send a content type such as application/octet-stream`,
  content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
};
