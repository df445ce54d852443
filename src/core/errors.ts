/**
 * One error shape for every response: {"error":{"type","message",...}} (OpenAI-compatible).
 * Types are stable snake_case strings that clients branch on; messages are for humans.
 * Services throw ApiError; the app's single error handler turns it into a response.
 */
export type ErrorExtra = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly extra: ErrorExtra;
  readonly headers: Record<string, string>;

  constructor(status: number, type: string, message: string, extra: ErrorExtra = {}, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.type = type;
    this.extra = extra;
    this.headers = headers;
  }

  body(): { error: Record<string, unknown> } {
    return { error: { type: this.type, message: this.message, ...this.extra } };
  }
}

/** A request field that is missing or wrong: names the field and the reason. */
export const invalidField = (param: string, reason: string): ApiError =>
  new ApiError(400, "invalid_request", `${param}: ${reason}`, { param });

export const badRequest = (type: string, message: string, extra: ErrorExtra = {}): ApiError =>
  new ApiError(400, type, message, extra);

/** Unknown, hidden and other tenants' records all answer the same 404. */
export const notFound = (what = "resource"): ApiError => new ApiError(404, "not_found", `${what} not found`);

export const unauthorized = (type: string, message: string): ApiError =>
  new ApiError(401, type, message, {}, { "www-authenticate": 'Bearer realm="svc"' });

export const forbidden = (type: string, message: string, extra: ErrorExtra = {}): ApiError =>
  new ApiError(403, type, message, extra);

export const conflict = (type: string, message: string): ApiError => new ApiError(409, type, message);

export const payloadTooLarge = (limit: number): ApiError =>
  new ApiError(413, "payload_too_large", `request body exceeds the ${limit}-byte limit`, { limit_bytes: limit });

export const rateLimited = (retryAfterSecs: number, message = "too many requests; slow down"): ApiError =>
  new ApiError(429, "rate_limited", message, { retry_after_secs: retryAfterSecs }, { "retry-after": String(retryAfterSecs) });

export const notImplemented = (feature: string): ApiError =>
  new ApiError(501, "not_implemented", `${feature} is not enabled on this deployment`);

export const errorResponse = (err: ApiError, extraHeaders: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(err.body()), {
    status: err.status,
    headers: { "content-type": "application/json", ...err.headers, ...extraHeaders },
  });
