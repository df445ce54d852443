/**
 * Upstream failures as the gateway reports them. Every one names the provider (field and
 * message), carries the upstream's HTTP status when there was one, and says whether another
 * provider serving the same model could succeed (`retryable`: fallback may try it; a request
 * the upstream rejected as malformed would be rejected again, so it is not).
 *
 *   upstream 429              → 429 upstream_rate_limited   retry_after_secs from Retry-After
 *   upstream 400, 413, 422    → 400 upstream_rejected       the upstream's own message
 *   upstream 401, 403         → 502 upstream_auth_failed    svc's credential for it is wrong
 *   upstream 408, our timeout → 504 upstream_timeout
 *   other 4xx, 5xx, bad body,
 *   a stream cut short        → 502 upstream_error
 *   refused, DNS, reset, no
 *   credential                → 502 upstream_unavailable
 *
 * Messages never hold the credential, the base URL (it may embed one) or a stack: the
 * upstream's text is cut short and scrubbed of anything shaped like a key.
 */
import { ApiError } from "../../../core/errors.ts";

export type UpstreamErrorType =
  | "upstream_rate_limited"
  | "upstream_rejected"
  | "upstream_auth_failed"
  | "upstream_timeout"
  | "upstream_error"
  | "upstream_unavailable";

/** Used when a 429 carries no usable Retry-After: long enough not to hammer, short enough to matter. */
export const DEFAULT_RETRY_AFTER_SECS = 5;
/** The most of an upstream's error text that is passed on. */
const MAX_UPSTREAM_MESSAGE = 500;

export class UpstreamError extends ApiError {
  readonly provider: string;
  readonly retryable: boolean;
  readonly upstreamStatus: number | null;

  constructor(options: {
    status: number;
    type: UpstreamErrorType;
    provider: string;
    message: string;
    retryable: boolean;
    upstreamStatus?: number | null;
    retryAfterSecs?: number;
  }) {
    const extra: Record<string, unknown> = { provider: options.provider };
    if (options.upstreamStatus != null) extra.upstream_status = options.upstreamStatus;
    const headers: Record<string, string> = {};
    if (options.retryAfterSecs !== undefined) {
      extra.retry_after_secs = options.retryAfterSecs;
      headers["retry-after"] = String(options.retryAfterSecs);
    }
    super(options.status, options.type, `provider ${options.provider}: ${options.message}`, extra, headers);
    this.provider = options.provider;
    this.retryable = options.retryable;
    this.upstreamStatus = options.upstreamStatus ?? null;
  }
}

const KEY_SHAPES = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // OpenAI-style keys (sk-…, sk-proj-…, sk-ant-…)
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/@]+@/g, // URL userinfo
  /([?&](?:api[_-]?key|key|token|access_token|sig)=)[^&\s]+/gi,
];

/** Removes the credential itself and anything shaped like one (keys, bearer tokens, URL user info, key= parameters). */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[redacted]");
  out = out.replace(KEY_SHAPES[0]!, "[redacted]").replace(KEY_SHAPES[1]!, "Bearer [redacted]");
  out = out.replace(KEY_SHAPES[2]!, (m) => m.slice(0, m.indexOf("://") + 3) + "[redacted]@");
  out = out.replace(KEY_SHAPES[3]!, "$1[redacted]");
  return out.length > MAX_UPSTREAM_MESSAGE ? `${out.slice(0, MAX_UPSTREAM_MESSAGE)}…` : out;
}

/**
 * Seconds to wait from Retry-After (delta-seconds or an HTTP date) or OpenAI's retry-after-ms,
 * rounded up, at least 1; DEFAULT_RETRY_AFTER_SECS when the upstream gave no usable hint.
 */
export function retryAfterSecs(headers: Headers, now = Date.now()): number {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.max(1, Math.ceil(Number(ms) / 1000));
  const value = headers.get("retry-after")?.trim();
  if (!value) return DEFAULT_RETRY_AFTER_SECS;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(1, Math.ceil(Number(value)));
  const at = Date.parse(value);
  return Number.isNaN(at) ? DEFAULT_RETRY_AFTER_SECS : Math.max(1, Math.ceil((at - now) / 1000));
}

/** The human part of an error body: OpenAI and Anthropic put it at error.message; vLLM and others at message or detail. */
export function upstreamMessage(bodyText: string): string | null {
  try {
    const body = JSON.parse(bodyText) as Record<string, unknown>;
    const error = body.error;
    if (error && typeof error === "object" && typeof (error as Record<string, unknown>).message === "string") return (error as { message: string }).message;
    if (typeof error === "string") return error;
    if (typeof body.message === "string") return body.message;
    if (typeof body.detail === "string") return body.detail;
    return null;
  } catch {
    return null;
  }
}

/** A non-2xx answer from the upstream. */
export function fromStatus(provider: string, status: number, headers: Headers, bodyText: string, secrets: readonly string[] = []): UpstreamError {
  const said = upstreamMessage(bodyText);
  const detail = said ? `: ${scrub(said, secrets)}` : "";
  const base = { provider, upstreamStatus: status };
  if (status === 429) {
    const secs = retryAfterSecs(headers);
    return new UpstreamError({ ...base, status: 429, type: "upstream_rate_limited", retryable: true, retryAfterSecs: secs, message: `rate limited upstream (HTTP 429); retry after ${secs} s${detail}` });
  }
  if (status === 400 || status === 413 || status === 422) {
    return new UpstreamError({ ...base, status: 400, type: "upstream_rejected", retryable: false, message: `the upstream rejected the request (HTTP ${status})${detail || ": no reason given"}` });
  }
  if (status === 401 || status === 403) {
    return new UpstreamError({ ...base, status: 502, type: "upstream_auth_failed", retryable: true, message: `the upstream refused svc's credential (HTTP ${status}); the operator must check this provider's API key` });
  }
  if (status === 408) {
    return new UpstreamError({ ...base, status: 504, type: "upstream_timeout", retryable: true, message: `the upstream timed out (HTTP 408)${detail}` });
  }
  return new UpstreamError({ ...base, status: 502, type: "upstream_error", retryable: true, message: `the upstream failed (HTTP ${status})${detail}` });
}

/** Where a transport failure happened, for the message and the type. */
export type FailurePhase = "connect" | "body";

/**
 * A failure with no HTTP answer to go by: our timeout fired (`timedOut`), or the connection was
 * refused, not resolvable, or reset. Before any response that is upstream_unavailable; once the
 * body had started, the upstream broke off (upstream_error).
 */
export function fromTransport(provider: string, err: unknown, phase: FailurePhase, timedOut: "total" | "headers" | null, timeoutSecs: number): UpstreamError {
  if (timedOut) {
    const what = timedOut === "headers" ? `did not start answering within ${timeoutSecs} s` : `did not finish within ${timeoutSecs} s`;
    return new UpstreamError({ provider, status: 504, type: "upstream_timeout", retryable: true, message: `the upstream ${what}` });
  }
  const code = err && typeof err === "object" && "code" in err ? String((err as { code: unknown }).code) : "";
  if (phase === "body") {
    return new UpstreamError({ provider, status: 502, type: "upstream_error", retryable: true, message: `the upstream's response broke off${code ? ` (${code})` : ""}` });
  }
  const why =
    code === "ECONNREFUSED" || code === "ConnectionRefused"
      ? "connection refused"
      : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "its host name does not resolve"
        : code
          ? `connection failed (${code})`
          : "connection failed";
  return new UpstreamError({ provider, status: 502, type: "upstream_unavailable", retryable: true, message: `the upstream is unreachable: ${why}` });
}

/** A 2xx whose body is not what the endpoint promises (e.g. not JSON). */
export const malformedResponse = (provider: string, what: string): UpstreamError =>
  new UpstreamError({ provider, status: 502, type: "upstream_error", retryable: true, message: `the upstream answered with ${what}` });

/** The provider cannot be called at all: its credential is missing here. */
export const credentialUnavailable = (provider: string, why: string): UpstreamError =>
  new UpstreamError({ provider, status: 502, type: "upstream_unavailable", retryable: true, message: `cannot be called: ${why}` });

/** request() for an endpoint the provider does not serve (callers check supports() first; fallback may try another). */
export const endpointNotServed = (provider: string, endpoint: string): UpstreamError =>
  new UpstreamError({ provider, status: 502, type: "upstream_unavailable", retryable: true, message: `it does not serve the ${endpoint} endpoint` });

/** Reads a non-streaming upstream body as JSON; anything else is a 502 naming the provider. */
export async function readUpstreamJson<T = unknown>(res: Response, provider: string): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw malformedResponse(provider, "a body that is not valid JSON");
  }
}
