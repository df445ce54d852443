/** A URL slug derived from a display name: "Acme Reserve Fund (USD)" → "acme-reserve-fund-usd". */

/** Accents folded, anything else non-alphanumeric to single hyphens, at most `max` characters; `fallback` when nothing is left. */
export function slugStem(name: string, fallback: string, max = 48): string {
  const stem = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/g, "");
  return stem || fallback;
}
