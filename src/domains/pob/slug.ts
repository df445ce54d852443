/**
 * A subject's public slug: derived from its name once, at creation, and never changed or freed —
 * a published check names it in its canonical line, so a slug that moved to another subject
 * would make old lines point at the wrong custodian. Renaming a subject keeps its slug.
 */
import { randomBytes } from "node:crypto";
import { slugStem } from "../../core/slug.ts";
import { SLUG_STEM_MAX } from "./limits.ts";

/** "Acme Reserve Fund (USD)" → "acme-reserve-fund-usd"; a name with no letters or digits gives "subject". */
export const subjectSlugStem = (name: string): string => slugStem(name, "subject", SLUG_STEM_MAX);

/** Numbered tries before a random suffix: the loop is bounded whatever the table holds. */
const NUMBERED_TRIES = 50;

/** The first of stem, stem-2, stem-3, … that `taken` refuses, or stem-<random> past NUMBERED_TRIES. */
export function freeSlug(stem: string, taken: (slug: string) => boolean): string {
  if (!taken(stem)) return stem;
  for (let n = 2; n <= NUMBERED_TRIES; n++) {
    const candidate = `${stem}-${n}`;
    if (!taken(candidate)) return candidate;
  }
  return `${stem}-${randomBytes(5).toString("hex")}`;
}
