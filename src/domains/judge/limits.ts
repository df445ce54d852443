/**
 * The judge's sizes in one place: the schemas (models.ts) state them to the OpenAPI document,
 * the service enforces what a schema cannot. Spec §8: 1-5 jurors per verdict; the verdicts list
 * takes limit 1-200, default 50. The content sizes are svc's (docs/judge.md "Limits").
 */
import type { LimitRule } from "../../core/envelopes.ts";

export const MIN_JURORS = 1;
export const MAX_JURORS = 5;
export const MAX_QUESTION_CHARS = 20_000;
export const MIN_CANDIDATES = 2;
/** Labels A…J: one letter each, so a juror's answer is unambiguous. */
export const MAX_CANDIDATES = 10;
export const MAX_CANDIDATE_CHARS = 20_000;
export const MAX_RUBRIC_CHARS = 5_000;
/** A juror's rationale beyond this is cut (before it is fingerprinted, so publishing re-supplies the cut text). */
export const MAX_RATIONALE_CHARS = 2_000;
export const MAX_MODEL_ID_CHARS = 200;

export const VERDICTS_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

/** What a verdict is when no single choice has the most votes, or when no juror voted. */
export const TIE = "tie";
export const UNDECIDED = "undecided";
