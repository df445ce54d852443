/**
 * Usage events as CSV (RFC 4180): a header line, then one line per event, CRLF line ends.
 * A field holding a comma, a double quote, CR or LF is wrapped in double quotes with inner
 * quotes doubled; null is an empty field; units is its JSON text. Values are never altered
 * otherwise, so the file round-trips to exactly what the JSON listing says.
 */
import { eventView, type UsageEventRow, type UsageEventView } from "./events.ts";

export const CSV_COLUMNS = ["id", "created_at", "kind", "resource", "key_id", "run_id", "cost_micro_usd", "reserved_micro_usd", "status", "units"] as const satisfies readonly (keyof UsageEventView)[];

/** Lines are handed to the response in chunks of this many, so a 1000-row page is never one big string. */
const LINES_PER_CHUNK = 100;

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  return values.map(csvField).join(",") + "\r\n";
}

/** A byte stream of the header and the rows, produced as the client reads. */
export function eventsCsvStream(rows: UsageEventRow[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let chunk = "";
      if (!headerSent) {
        chunk += csvLine(CSV_COLUMNS);
        headerSent = true;
      }
      for (const row of rows.slice(next, next + LINES_PER_CHUNK)) {
        const view = eventView(row);
        chunk += csvLine(CSV_COLUMNS.map((c) => view[c]));
      }
      next += LINES_PER_CHUNK;
      controller.enqueue(encoder.encode(chunk));
      if (next >= rows.length) controller.close();
    },
  });
}
