/**
 * A detector: one kind of thing a guardrail looks for in text (detectors/<type>.ts, one file
 * each). It finds (spans, for a stream deciding where it may cut) and redacts; what happens on
 * a find — allow (count it), redact, block — is the guardrail's action, applied in guard.ts.
 */
import type { Span } from "../../../core/redact.ts";

export interface Detector {
  /** Where matches are. */
  spans(text: string): Span[];
  /** The text with every match replaced by `[REDACTED:<kind>]`, and how many there were. */
  redact(text: string): { text: string; count: number };
}

/** A detector type: its options checked (errors name `field`) and compiled once per guardrail. */
export interface DetectorType {
  /** What it finds, for docs and the policies list. */
  describe: string;
  compile(options: Record<string, unknown>, field: string): Detector;
}
