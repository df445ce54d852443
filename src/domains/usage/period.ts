/**
 * Instants and periods given by clients (RFC 3339), shared by the usage filters, the usage
 * statement and the SLA report. A period is half-open: from inclusive, to exclusive, so
 * consecutive periods (one month, the next) never count an event twice.
 */
import { invalidField } from "../../core/errors.ts";
import { instant as strictInstant, TIME_ERROR } from "../../core/instant.ts";

export { TIME_ERROR };

/**
 * TypeBox's date-time format also takes a bare date and Date.parse takes almost anything; a
 * period needs an instant: RFC 3339 with a time zone. A space stands for the "+" of an offset (an
 * unencoded "+" in a query string arrives as one). The request schemas state the same pattern.
 */
export const INSTANT_PATTERN = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+ -]\\d{2}:\\d{2})$";

/**
 * Milliseconds since the epoch, or 400 naming the field. In a query string an unencoded "+"
 * of an offset arrives as a space ("…T10:00:00 01:00"); that is taken for the "+" it was.
 */
export const instant = (field: string, value: string): number => strictInstant(field, value.replace(/ (\d{2}:\d{2})$/, "+$1"));

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
