/**
 * The svc_ body fields (spec §4.3) are svc's own: they steer routing, scrubbing, receipts and
 * context attestation, and must never reach an upstream. Every route strips them first, then
 * translates or forwards the rest.
 *
 * Every key starting with `svc_` is removed, not only the known ones, so a misspelt field
 * (svc_regoin) is not leaked upstream either; its name is reported so the route can refuse it
 * instead of silently ignoring what the caller meant to ask for.
 */
export const SVC_FIELDS = ["svc_privacy_tier", "svc_region", "svc_scrub", "svc_run_id", "svc_context", "svc_source_set"] as const;
export type SvcFieldName = (typeof SVC_FIELDS)[number];

/** The values as the client sent them; the route validates their types. */
export type SvcFields = Partial<Record<SvcFieldName, unknown>>;

const KNOWN = new Set<string>(SVC_FIELDS);

export function stripSvcFields<T extends Record<string, unknown>>(body: T): { clean: Omit<T, SvcFieldName>; svc: SvcFields; unknownSvc: string[] } {
  const clean: Record<string, unknown> = {};
  const svc: Record<string, unknown> = {};
  const unknownSvc: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!key.startsWith("svc_")) clean[key] = value;
    else if (KNOWN.has(key)) svc[key] = value;
    else unknownSvc.push(key);
  }
  return { clean: clean as Omit<T, SvcFieldName>, svc: svc as SvcFields, unknownSvc };
}
