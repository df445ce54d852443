/**
 * The fingerprints a verdict states and its receipt signs: sha256 (lowercase hex) of the UTF-8
 * question and rubric as given, and of the canonical JSON (core/canonical-json.ts) of the
 * candidates array and of the rationales array in juror order (null for a juror without one).
 * Publishing recomputes them from the re-supplied content; docs/judge.md shows how anyone can.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { sha256Hex } from "../../core/secrets.ts";

export interface Fingerprints {
  question_sha256: string;
  candidates_sha256: string | null;
  rubric_sha256: string | null;
  rationales_sha256: string;
}

export interface Content {
  question: string;
  candidates: string[] | null;
  rubric: string | null;
  rationales: (string | null)[];
}

export function fingerprintsOf(c: Content): Fingerprints {
  return {
    question_sha256: sha256Hex(c.question),
    candidates_sha256: c.candidates === null ? null : sha256Hex(canonicalJson(c.candidates)),
    rubric_sha256: c.rubric === null ? null : sha256Hex(c.rubric),
    rationales_sha256: sha256Hex(canonicalJson(c.rationales)),
  };
}

const FIELDS = {
  question_sha256: "question",
  candidates_sha256: "candidates",
  rubric_sha256: "rubric",
  rationales_sha256: "rationales",
} as const satisfies Record<keyof Fingerprints, keyof Content>;

/** The content fields whose fingerprint differs from the stated one, in a fixed order. */
export function mismatchedFields(stated: Fingerprints, supplied: Fingerprints): (keyof Content)[] {
  return (Object.keys(FIELDS) as (keyof Fingerprints)[]).filter((k) => stated[k] !== supplied[k]).map((k) => FIELDS[k]);
}
