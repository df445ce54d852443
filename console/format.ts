/** How the console writes money and time. Money arrives as integer micro-USD and stays integer until shown. */

/** "$12.345678" trimmed to cents when whole cents: 1_500_000 → "$1.50", 1_234 → "$0.001234". */
export function usd(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const abs = Math.abs(micro);
  const dollars = Math.floor(abs / 1_000_000);
  const frac = String(abs % 1_000_000).padStart(6, "0");
  const trimmed = frac.replace(/0+$/, "");
  return `${sign}$${dollars.toLocaleString("en-US")}.${trimmed.length <= 2 ? frac.slice(0, 2) : trimmed}`;
}

/** A dollar amount typed by a person → integer micro-USD, or an error message. */
export function parseUsd(text: string): number | string {
  const t = text.trim().replace(/^\$/, "");
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(t)) return "must be a dollar amount such as 5 or 2.50 (at most 6 decimals)";
  const [whole, frac = ""] = t.split(".");
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, "0"));
}

export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export const short = (id: string, keep = 10): string => (id.length > keep + 2 ? `${id.slice(0, keep)}…` : id);
