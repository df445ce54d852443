/**
 * Errors the runner throws at its caller. Each carries the stable snake_case `type` and the
 * HTTP status the routes will answer with, so the sandbox service can turn one into the
 * gateway's error body without a lookup table. A failing *program* is never an exception: it
 * is a RunResult with status "error"; these are for bad requests and refused file operations.
 */
export class SandboxError extends Error {
  readonly type: string;
  readonly status: number;

  constructor(status: number, type: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.type = type;
  }
}

/** A run spec or limits field that is missing or wrong; names the field and the reason. */
export class InvalidRunSpecError extends SandboxError {
  readonly param: string;

  constructor(param: string, reason: string) {
    super(400, "invalid_request", `${param}: ${reason}`);
    this.param = param;
  }
}

export type WorkspacePathProblem =
  | "invalid_path" // empty, absolute, "..", NUL, too long
  | "not_found"
  | "symlink" // the files API never follows a symlink, wherever it points
  | "not_a_file"
  | "not_a_directory";

/** A workspace path the files API refuses to touch. */
export class WorkspacePathError extends SandboxError {
  readonly problem: WorkspacePathProblem;
  readonly path: string;

  constructor(problem: WorkspacePathProblem, path: string, detail?: string) {
    const status = problem === "not_found" ? 404 : 400;
    const type = problem === "not_found" ? "not_found" : "invalid_path";
    super(status, type, `${JSON.stringify(path)}: ${detail ?? problem.replaceAll("_", " ")}`);
    this.problem = problem;
    this.path = path;
  }
}

/** A file write above the per-file cap (spec §8: 8 MiB). */
export class FileTooLargeError extends SandboxError {
  readonly limitBytes: number;

  constructor(limitBytes: number, actualBytes: number) {
    super(413, "payload_too_large", `file is ${actualBytes} bytes; the limit is ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
  }
}

/** A write that would take the workspace past its quota. */
export class WorkspaceQuotaError extends SandboxError {
  readonly quotaBytes: number;

  constructor(quotaBytes: number) {
    super(413, "workspace_quota_exceeded", `the workspace is limited to ${quotaBytes} bytes`);
    this.quotaBytes = quotaBytes;
  }
}

/** The runner itself cannot do what was asked (bwrap missing, tar failed, ...). */
export class SandboxUnavailableError extends SandboxError {
  constructor(message: string) {
    super(503, "sandbox_failed", message);
  }
}
