/**
 * Instants and periods given by clients (RFC 3339), shared by the usage filters, the usage
 * statement and the SLA report. A period is half-open: from inclusive, to exclusive, so
 * consecutive periods (one month, the next) never count an event twice.
 */
import { invalidField } from "../../core/errors.ts";

export const TIME_ERROR = "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T00:00:00Z";

/**
 * TypeBox's date-time format also takes a bare date and Date.parse takes almost anything; a
 * period needs an instant: RFC 3339 with a time zone. A space stands for the "+" of an offset (an
 * unencoded "+" in a query string arrives as one). The request schemas state the same pattern.
 */
export const INSTANT_PATTERN = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+ -]\\d{2}:\\d{2})$";
const RFC3339 = new RegExp(INSTANT_PATTERN);

/**
 * Milliseconds since the epoch, or 400 naming the field. In a query string an unencoded "+"
 * of an offset arrives as a space ("…T10:00:00 01:00"); that is taken for the "+" it was.
 */
export function instant(field: string, value: string): number {
  const text = value.replace(/ (\d{2}:\d{2})$/, "+$1");
  const ms = RFC3339.test(text) ? Date.parse(text.toUpperCase()) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidField(field, TIME_ERROR);
  return ms;
}

export interface Period {
  from: number;
  to: number;
}

/** from < to, or 400 naming `to`. */
export function orderedPeriod(from: number, to: number): Period {
  if (to <= from) throw invalidField("to", "must be after from");
  return { from, to };
}

/** A signed or reported period must be over: its figures could still change otherwise. */
export function closedPeriod(period: Period, now: number): Period {
  if (period.to > now) throw invalidField("to", "must not be in the future: the period has to be over");
  return period;
}
