/**
 * Instants given by clients: RFC 3339 with a time zone. TypeBox's date-time format also takes a
 * bare date and Date.parse takes almost anything, so every area that reads an instant from a body
 * (expiries, reveal times, valuation times) states this pattern in its schema and parses with
 * instant(): one rule, one error message.
 */
import { type StringOptions, Type } from "@sinclair/typebox";
import { invalidField } from "./errors.ts";

export const TIME_ERROR = "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z";

export const INSTANT_PATTERN = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$";
const RFC3339 = new RegExp(INSTANT_PATTERN);

/** Milliseconds since the epoch, or 400 naming the field. */
export function instant(field: string, value: string): number {
  const ms = RFC3339.test(value) ? Date.parse(value.toUpperCase()) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidField(field, TIME_ERROR);
  return ms;
}

/** A request field holding an instant (options may replace the error, add a description). */
export const Instant = (options: StringOptions = {}) => Type.String({ format: "date-time", pattern: INSTANT_PATTERN, maxLength: 40, error: TIME_ERROR, ...options });
