/**
 * The app root's one error handler: every failure leaves as the one error shape of
 * core/errors.ts. Validation failures name the field and the reason; unexpected errors are
 * logged with a reference and answered without a stack trace or any detail of the cause.
 *
 * A decorator lets the app add to an ApiError's response what only a domain knows, in this one
 * place (the x402 payment terms of a 402 insufficient_credit: src/domains/billing/x402.ts),
 * since core must not import domains.
 */
import { ApiError, errorResponse } from "./errors.ts";
import { newId } from "./ids.ts";
import type { Logger } from "./log.ts";
import type { MethodsOf } from "./route-methods.ts";

/** Extra top-level body fields and headers for an ApiError's response; svc's `error` object always wins. */
export type ErrorDecorator = (error: ApiError, request: Request) => { body?: Record<string, unknown>; headers?: Record<string, string> } | null;

interface ValueErrorLike {
  path: string;
  message: string;
  schema?: { error?: unknown };
}

interface ValidationLike {
  type: string;
  all?: ValueErrorLike[];
  valueError?: ValueErrorLike;
}

const MAX_LISTED = 10;

function fieldName(where: string, path: string): string {
  const inner = path.replace(/^\//, "").replaceAll("/", ".");
  if (where === "body") return inner || "body";
  return inner ? `${where}.${inner}` : where;
}

/** TypeBox's wording, made to read after a field name ("account_id: is required"). */
function reason(item: ValueErrorLike): string {
  if (typeof item.schema?.error === "string") return item.schema.error;
  if (item.message === "Expected required property") return "is required";
  if (item.message === "Unexpected property") return "is not an accepted field";
  return item.message.replace(/^Expected/, "expected");
}

function validationError(err: ValidationLike): ApiError {
  const items = err.all?.length ? err.all : err.valueError ? [err.valueError] : [];
  const seen = new Set<string>();
  const errors: { param: string; reason: string }[] = [];
  for (const item of items) {
    const param = fieldName(err.type, item.path);
    if (seen.has(param)) continue; // the first complaint about a field is the useful one
    seen.add(param);
    errors.push({ param, reason: reason(item) });
    if (errors.length === MAX_LISTED) break;
  }
  const first = errors[0] ?? { param: err.type, reason: "is not valid" };
  return new ApiError(400, "invalid_request", `${first.param}: ${first.reason}`, { param: first.param, errors });
}

export interface ErrorHandlerOptions {
  /** Extra fields a domain adds to some ApiErrors (x402 terms on a 402). */
  decorate?: ErrorDecorator;
  /** The methods a path is served with, for 405 and OPTIONS (the routes are known only once mounted). */
  methodsOf?: () => MethodsOf;
}

/** No route for this method: 405 with Allow when the path is served with other methods; OPTIONS lists them. */
function unmatched(request: Request, methodsOf?: () => MethodsOf): Response {
  const url = new URL(request.url);
  const allowed = methodsOf?.()(url.pathname) ?? [];
  if (allowed.length) {
    const allow = [...allowed, "OPTIONS"].join(", ");
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: { allow } });
    return errorResponse(new ApiError(405, "method_not_allowed", `${url.pathname} does not take ${request.method}; it takes ${allowed.join(", ")}`, { allowed_methods: allowed }), { allow });
  }
  return errorResponse(new ApiError(404, "not_found", `no route for ${request.method} ${url.pathname}`));
}

export function errorHandler(log: Logger, options: ErrorHandlerOptions = {}) {
  const { decorate, methodsOf } = options;
  return (c: { code: string | number; error: unknown; request: Request; set: { status?: number | string } }): Response => {
    const response = c.code === "NOT_FOUND" ? unmatched(c.request, methodsOf) : toResponse(c.code, c.error, c.request, log, decorate);
    // Telemetry reads the status from `set`, which a returned Response does not update.
    c.set.status = response.status;
    return response;
  };
}

function apiErrorResponse(err: ApiError, request: Request, log: Logger, decorate?: ErrorDecorator): Response {
  let extra: ReturnType<ErrorDecorator> = null;
  try {
    extra = decorate?.(err, request) ?? null;
  } catch (cause) {
    // A broken decorator must not turn a clean refusal into a 500: answer without its additions.
    log.error("error decorator failed", { type: err.type, error: cause instanceof Error ? cause.message : String(cause) });
  }
  if (!extra) return errorResponse(err);
  return new Response(JSON.stringify({ ...extra.body, ...err.body() }), {
    status: err.status,
    headers: { "content-type": "application/json", ...err.headers, ...extra.headers },
  });
}

function toResponse(code: string | number, error: unknown, request: Request, log: Logger, decorate?: ErrorDecorator): Response {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (error instanceof ApiError) return apiErrorResponse(error, request, log, decorate);
  if (code === "PARSE" && cause instanceof ApiError) return apiErrorResponse(cause, request, log, decorate);
  if (code === "VALIDATION" && (error as ValidationLike).type !== "response") return errorResponse(validationError(error as ValidationLike));
  if (code === "PARSE") return errorResponse(new ApiError(400, "invalid_body", "request body could not be parsed"));
  if (code === "INVALID_COOKIE_SIGNATURE") return errorResponse(new ApiError(400, "invalid_cookie", "a cookie is malformed"));
  // The client hung up and the work in hand was aborted with it (an upstream fetch, a body read):
  // nobody will read this answer and nothing went wrong on our side, so no error and no reference.
  // 499 is the status proxies log for a request the client closed.
  if (request.signal.aborted) {
    log.debug("client closed the request before its answer", { method: request.method, path: new URL(request.url).pathname });
    return errorResponse(new ApiError(499, "client_closed_request", "the client closed the request before it was answered"));
  }
  const reference = newId("err");
  log.error("unhandled error", {
    reference,
    method: request.method,
    path: new URL(request.url).pathname,
    code: String(code),
    error: error instanceof Error ? error.stack ?? error.message : String(error),
  });
  return errorResponse(new ApiError(500, "internal_error", "something went wrong on our side; the operator can look up this reference in the logs", { reference }));
}
