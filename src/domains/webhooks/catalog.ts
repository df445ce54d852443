/**
 * The event catalogue of spec §6: every type a webhook may subscribe to, whether or not the
 * feature that emits it has shipped yet (a subscription made today keeps working when it
 * does). test/domains/webhooks/events-catalog.test.ts holds the same table with, for each type, the
 * feature that emits it, and fails when a shipped feature does not.
 */
import { invalidField } from "../../core/errors.ts";

export const EVENT_TYPES = [
  "key_created",
  "key_revoked",
  "webhook_created",
  "webhook_revoked",
  "deposit_credited",
  "balance_low",
  "spend_cap_reached",
  "sandbox_failed",
  "sandbox_session_stopped",
  "attestation_failed",
  "receipt_minted",
  "vault_transfer_sent",
  "vault_transfer_received",
  "vault_distribution",
  "vault_attestation",
  "service_called",
  "batch_completed",
  "batch_failed",
  "webhook_test",
  "eval_drift_detected",
] as const;

/**
 * Events svc emits beyond §6's list, for features whose spec names no event (docs/webhooks.md
 * "svc's own events"): subscribable by name like §6's, never instead of one.
 */
export const SVC_EVENT_TYPES = ["legacy_plan_warning", "legacy_plan_released", "legacy_plan_claimed"] as const;

/** §6 names the attestation.* family without its members: a subscription takes the whole family. */
export const EVENT_FAMILIES = ["attestation.*"] as const;

/** The family's members svc emits (docs/attestations.md "Events"): subscribable one by one too. */
export const FAMILY_MEMBERS = ["attestation.verified", "attestation.discrepancy", "attestation.unavailable", "attestation.stale"] as const;

export const ALL_EVENTS = "*";

/** The synthetic event of POST /v1/webhooks/:id/test: it goes to that one webhook, whatever its filter. */
export const WEBHOOK_TEST = "webhook_test";

const known = new Set<string>([...EVENT_TYPES, ...SVC_EVENT_TYPES, ...EVENT_FAMILIES, ...FAMILY_MEMBERS]);

/**
 * A subscription's event list, checked against the catalogue: ["*"] alone, or known types
 * (duplicates dropped, order kept). An unknown type is a 400 that names it.
 */
export function parseEventFilter(events: string[]): string[] {
  if (!events.length) throw invalidField("events", 'name at least one event type, or ["*"] for all');
  if (events.includes(ALL_EVENTS)) {
    if (events.some((e) => e !== ALL_EVENTS)) throw invalidField("events", '"*" already means every event type; give it alone');
    return [ALL_EVENTS];
  }
  const unknown = events.filter((e) => !known.has(e));
  if (unknown.length) {
    throw invalidField("events", `unknown event type${unknown.length > 1 ? "s" : ""} ${unknown.map((e) => `"${e}"`).join(", ")} (the catalogue: docs/webhooks.md)`);
  }
  return [...new Set(events)];
}

/** Whether a webhook subscribed to `filter` wants an event of `type`. */
export function wants(filter: readonly string[], type: string): boolean {
  for (const f of filter) {
    if (f === ALL_EVENTS || f === type) return true;
    if (f.endsWith(".*") && type.startsWith(f.slice(0, -1))) return true;
  }
  return false;
}
