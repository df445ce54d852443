/**
 * A batch's lines, in and out, in the OpenAI Batch API's formats.
 *
 * In (checked on upload, purpose "batch"): {custom_id, method: "POST", url, body} — custom_id
 * unique in the file, url one of the four inference routes, body an object naming a model and
 * not asking to stream.
 *
 * Out: one JSON object per input line, in the output file when the call answered 200 and in the
 * error file otherwise:
 *   {id, custom_id, response: {status_code, request_id, body}, error, receipt_id, cost_micro_usd}
 * A line that never ran (the batch was cancelled, expired or stopped first; svc stopped while it
 * ran) has response null and error {code, message}. receipt_id names the line's signed receipt
 * (GET /v1/receipts/:id); it and cost_micro_usd are svc's additions.
 */
import { ApiError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { type LineChecker, LineError } from "../files/index.ts";
import { BATCH_ENDPOINTS } from "../inference/index.ts";

export interface InputLine {
  custom_id: string;
  url: string;
  body: Record<string, unknown>;
}

const MAX_CUSTOM_ID = 512;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const FIELDS = new Set(["custom_id", "method", "url", "body"]);

/** The upload checker of purpose "batch". */
export function batchLineChecker(): LineChecker {
  const seen = new Map<string, number>();
  return {
    line(value, no) {
      if (!isObject(value)) throw new LineError("must be a JSON object {custom_id, method, url, body}");
      const extra = Object.keys(value).find((k) => !FIELDS.has(k));
      if (extra) throw new LineError(`unknown field "${extra}" (a line has custom_id, method, url and body)`);
      const id = value.custom_id;
      if (typeof id !== "string" || id === "") throw new LineError("custom_id is required: a non-empty string");
      if (id.length > MAX_CUSTOM_ID) throw new LineError(`custom_id is longer than ${MAX_CUSTOM_ID} characters`);
      const first = seen.get(id);
      if (first !== undefined) throw new LineError(`custom_id "${id}" is already used by line ${first}; each must be unique`);
      seen.set(id, no);
      if (value.method !== "POST") throw new LineError('method must be "POST"');
      if (typeof value.url !== "string" || !BATCH_ENDPOINTS.includes(value.url)) {
        throw new LineError(`url ${JSON.stringify(value.url ?? null)} is not supported; one of ${BATCH_ENDPOINTS.join(", ")}`);
      }
      if (!isObject(value.body)) throw new LineError("body must be a JSON object: the request body for url");
      if (typeof value.body.model !== "string" || value.body.model === "") throw new LineError("body.model is required: a model id from GET /v1/models");
      if (value.body.stream === true) throw new LineError("body.stream: batch lines are not streamed; leave it out");
    },
  };
}

/** A stored input line (checked on upload). */
export const parseInputLine = (text: string): InputLine => JSON.parse(text) as InputLine;

const lineId = () => newId("batch_req");

export function outputLine(customId: string, body: unknown, receiptId: string | null, cost: number): string {
  return JSON.stringify({
    id: lineId(),
    custom_id: customId,
    response: { status_code: 200, request_id: newId("req"), body },
    error: null,
    receipt_id: receiptId,
    cost_micro_usd: cost,
  });
}

/** A call that answered an error: its status and the error body the route would have sent. */
export function failedLine(customId: string, err: ApiError): string {
  return JSON.stringify({
    id: lineId(),
    custom_id: customId,
    response: { status_code: err.status, request_id: newId("req"), body: err.body() },
    error: { code: err.type, message: err.message },
    receipt_id: null,
    cost_micro_usd: 0,
  });
}

/** A line that never ran (or was cut off): no response. */
export function notRunLine(customId: string | null, code: string, message: string): string {
  return JSON.stringify({ id: lineId(), custom_id: customId, response: null, error: { code, message }, receipt_id: null, cost_micro_usd: 0 });
}
