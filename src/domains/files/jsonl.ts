/**
 * An uploaded JSONL file, checked whole before anything is stored: UTF-8, one JSON value per
 * line (a final newline is fine, an empty line elsewhere is not), each within the JSON shape
 * limits every request body has, at most files.max_lines lines, and each line accepted by its
 * purpose's checker. The first fault is a 400 invalid_file that names the line.
 */
import { checkJsonShape, type JsonLimits } from "../../core/body.ts";
import { ApiError } from "../../core/errors.ts";
import { type LineChecker, LineError } from "./purposes.ts";

export interface ParsedFile {
  /** Each line's text, as uploaded (without its newline or a trailing \r). */
  lines: string[];
  bytes: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export const invalidFile = (message: string, line?: number): ApiError =>
  new ApiError(400, "invalid_file", line === undefined ? `file: ${message}` : `file: line ${line}: ${message}`, { param: "file", ...(line === undefined ? {} : { line }) });

export function parseJsonl(bytes: Uint8Array, options: { maxLines: number; json: JsonLimits; checker: LineChecker }): ParsedFile {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidFile("is not UTF-8 text (a JSONL file is one JSON object per line)");
  }
  const raw = text.split("\n");
  if (raw.length && raw[raw.length - 1] === "") raw.pop();
  if (!raw.length) throw invalidFile("is empty: a JSONL file needs at least one line");
  if (raw.length > options.maxLines) throw invalidFile(`has ${raw.length} lines; at most ${options.maxLines} are accepted (files.max_lines)`);
  const encoder = new TextEncoder();
  const lines = raw.map((line, i) => {
    const no = i + 1;
    const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (clean.trim() === "") throw invalidFile("is empty; every line must be one JSON object", no);
    let value: unknown;
    try {
      checkJsonShape(encoder.encode(clean), options.json);
      value = JSON.parse(clean);
    } catch (err) {
      const reason = err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
      throw invalidFile(`is not valid JSON (${reason})`, no);
    }
    try {
      options.checker.line(value, no);
    } catch (err) {
      if (err instanceof LineError) throw invalidFile(err.message, no);
      throw err;
    }
    return clean;
  });
  return { lines, bytes: bytes.byteLength };
}
