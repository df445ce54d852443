/**
 * Request bodies, read once for every route: the size limit (413 before a byte too many is
 * buffered), the operator's payload denylist (a body whose sha256 is listed never reaches a
 * handler or an upstream), and parsing by content type with a clear 400 for malformed JSON.
 * The raw bytes stay available to handlers that verify signatures over them.
 *
 * JSON is also bounded in shape before it is parsed: nesting depth and the number of values.
 * Everything downstream (schema validation, translation, canonical JSON) walks values
 * recursively; a few thousand brackets in ten kilobytes would otherwise exhaust the stack there
 * and turn a hostile body into a 500. The scan is one pass over the bytes.
 */
import { createHash } from "node:crypto";
import { ApiError, payloadTooLarge } from "./errors.ts";

export interface BodyPolicy {
  maxBytes: number;
  /** Larger limits for particular routes, by "METHOD /path". */
  routeLimits?: ReadonlyMap<string, number>;
  /** Deepest nesting of arrays and objects a JSON body may have. */
  maxJsonDepth: number;
  /** Most values (array elements, object members, scalars) a JSON body may hold. */
  maxJsonElements: number;
  /** Asked of every non-empty body, with its hex sha256 to compute if needed (not at all while nothing is denied); true refuses the request. */
  isDenied(sha256: () => string): boolean;
}

const rawBodies = new WeakMap<Request, Uint8Array>();

/** The exact bytes the client sent (empty for bodiless requests). */
export const rawBody = (request: Request): Uint8Array => rawBodies.get(request) ?? new Uint8Array(0);

export const payloadDenied = (): ApiError =>
  new ApiError(403, "payload_denied", "this request body is on the operator's denylist and was refused");

/**
 * The request's body, refused (413) past `maxBytes`. A body with a Content-Length within the
 * limit is read whole by the runtime, which holds a request to its declared length: reading it
 * as a stream instead cost ~150 KB of garbage per request on Bun's HTTP server (the stream's
 * buffers, for a 130-byte chat body) — three times the rest of a metered call, and with it most
 * of the garbage collections behind the latency tail (bench/README.md). A body without one
 * (chunked) is read as a stream and cut off at the limit.
 */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (declared && /^\d+$/.test(declared)) return new Uint8Array(await request.arrayBuffer());
  return readStreamLimited(request.body, maxBytes, () => payloadTooLarge(maxBytes));
}

/**
 * Every byte of a stream, refusing (with `tooLarge()`) as soon as more than `maxBytes` arrive:
 * nothing beyond the limit is buffered. For request bodies, and for documents svc fetches.
 */
export async function readStreamLimited(stream: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

function formToObject(form: { keys(): Iterable<string>; getAll(key: string): unknown[] }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    const values = form.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

export interface JsonLimits {
  maxDepth: number;
  maxElements: number;
}

/**
 * 400 when the JSON text nests deeper or holds more values than allowed. Counts structure
 * outside strings only; malformed text is left for JSON.parse to report.
 *
 * A string is skipped to its closing quote with indexOf (native memchr) rather than byte by
 * byte: a chat body is mostly string content, and the byte loop cost ~0.9 ms of the event loop
 * per 240 KB prompt. A quote is escaped when an odd run of backslashes precedes it; each run is
 * counted once, so the scan stays linear whatever the text.
 */
export function checkJsonShape(bytes: Uint8Array, limits: JsonLimits): void {
  let depth = 0;
  let elements = 1;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      i = closingQuote(bytes, i + 1);
      if (i < 0) return; // unterminated: JSON.parse reports it
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) {
        throw new ApiError(400, "json_too_deep", `request body nests arrays and objects more than ${limits.maxDepth} levels deep`, { max_depth: limits.maxDepth });
      }
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
    else if (b === COMMA && ++elements > limits.maxElements) {
      throw new ApiError(400, "json_too_many_values", `request body holds more than ${limits.maxElements} JSON values`, { max_values: limits.maxElements });
    }
  }
}

/** The index of the quote that closes a string whose content starts at `from`, or -1. */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let q = bytes.indexOf(QUOTE, from); q >= 0; q = bytes.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (q - 1 - slashes >= from && bytes[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

const isJson = (type: string): boolean => type === "" || type === "application/json" || type.endsWith("+json");

export async function parseBytes(bytes: Uint8Array, contentType: string, limits?: JsonLimits): Promise<unknown> {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (isJson(type)) {
    if (limits) checkJsonShape(bytes, limits);
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch (err) {
      const reason = err instanceof Error ? err.message : "unparseable";
      throw new ApiError(400, "invalid_json", `request body is not valid JSON (${reason})`);
    }
  }
  if (type.startsWith("text/")) return decoder.decode(bytes);
  if (type === "application/x-www-form-urlencoded") return formToObject(new URLSearchParams(decoder.decode(bytes)));
  if (type === "multipart/form-data") {
    try {
      return formToObject(await new Response(bytes, { headers: { "content-type": contentType } }).formData());
    } catch {
      throw new ApiError(400, "invalid_multipart", "request body is not valid multipart/form-data");
    }
  }
  return bytes;
}

/** The app-wide body hook (Elysia onParse): returns the parsed body, or undefined for none. */
export function bodyHook(policy: BodyPolicy) {
  return async ({ request, contentType }: { request: Request; contentType: string }): Promise<unknown> => {
    const limit = policy.routeLimits?.size ? (policy.routeLimits.get(`${request.method} ${new URL(request.url).pathname}`) ?? policy.maxBytes) : policy.maxBytes;
    const bytes = await readLimited(request, limit);
    if (bytes.byteLength === 0) return undefined;
    if (policy.isDenied(() => createHash("sha256").update(bytes).digest("hex"))) throw payloadDenied();
    rawBodies.set(request, bytes);
    // The full header: Elysia's contentType may leave out parameters (a multipart boundary).
    return parseBytes(bytes, request.headers.get("content-type") ?? contentType ?? "", { maxDepth: policy.maxJsonDepth, maxElements: policy.maxJsonElements });
  };
}
