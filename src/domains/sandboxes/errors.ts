/**
 * The sandbox service's errors: the runner's refusals as the gateway's error body, and the
 * refusals of the service itself (docs/api-conventions.md lists the types).
 */
import { ApiError } from "../../core/errors.ts";
import { FileTooLargeError, InvalidRunSpecError, SandboxError, WorkspaceQuotaError } from "./runner/index.ts";

/** A runner refusal (a bad spec, a path, a quota) as an ApiError with the same status and type; anything else unchanged. */
export function asApiError(err: unknown): unknown {
  if (err instanceof ApiError || !(err instanceof SandboxError)) return err;
  if (err instanceof InvalidRunSpecError) return new ApiError(400, "invalid_request", err.message, { param: err.param, errors: [{ param: err.param, reason: err.message.slice(err.param.length + 2) }] });
  if (err instanceof FileTooLargeError) return new ApiError(413, "payload_too_large", `${err.message} (a file written to a sandbox workspace is at most 8 MiB)`, { limit_bytes: err.limitBytes });
  if (err instanceof WorkspaceQuotaError) return new ApiError(413, "workspace_quota_exceeded", err.message, { quota_bytes: err.quotaBytes });
  return new ApiError(err.status, err.type, err.message);
}

export const sessionStopped = (id: string, reason: string | null): ApiError =>
  new ApiError(409, "session_stopped", `sandbox session ${id} is stopped${reason ? ` (${reason})` : ""}; start a new session`, { session_id: id, stop_reason: reason });

export const noSandboxNode = (why: string): ApiError => new ApiError(503, "no_sandbox_node", why);

export const sandboxFailed = (message: string): ApiError => new ApiError(503, "sandbox_failed", `the sandbox failed to run (nothing was billed): ${message}`);
