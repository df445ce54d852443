/**
 * The blocklist detector: the account's own terms, case-insensitive, as whole words unless
 * `options.whole_word` is false (so "ass" does not match "class"). Terms are matched literally:
 * regex characters in a term are escaped, never interpreted.
 */
import { invalidField } from "../../../core/errors.ts";
import { patternDetector } from "./patterns.ts";
import type { DetectorType } from "./types.ts";

export const BLOCKLIST_LIMITS = { terms: 500, termLength: 200 } as const;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export const blocklist: DetectorType = {
  describe: "the guardrail's own terms (options.terms), case-insensitive, whole words unless options.whole_word is false",
  compile(options, field) {
    const terms = options.terms;
    if (!Array.isArray(terms) || terms.length === 0 || terms.length > BLOCKLIST_LIMITS.terms) {
      throw invalidField(`${field}.terms`, `is required: a list of 1-${BLOCKLIST_LIMITS.terms} terms`);
    }
    for (const [i, t] of terms.entries()) {
      if (typeof t !== "string" || t.trim() === "" || t.length > BLOCKLIST_LIMITS.termLength) throw invalidField(`${field}.terms[${i}]`, `must be a non-blank string of at most ${BLOCKLIST_LIMITS.termLength} characters`);
    }
    if (options.whole_word !== undefined && typeof options.whole_word !== "boolean") throw invalidField(`${field}.whole_word`, "must be a boolean");
    const whole = options.whole_word !== false;
    // Longest first, so "credit card" wins over "card"; one alternation, one pass over the text.
    const alternation = [...new Set((terms as string[]).map((t) => t.trim()))].sort((a, b) => b.length - a.length).map(escape).join("|");
    const pattern = whole ? new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternation})(?![\\p{L}\\p{N}_])`, "giu") : new RegExp(`(?:${alternation})`, "giu");
    return patternDetector("blocklist", [pattern]);
  },
};
