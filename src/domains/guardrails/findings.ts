/**
 * GET /v1/guardrails/findings: what the guardrails did, content-free. Billed calls carry their
 * findings on their signed receipts (the `guardrails` attestation: ids enforced, and
 * "guardrail:detector:direction:action:count" entries), so this scans the account's newest receipts
 * rather than keeping a second copy; blocked calls were billed nothing and have no receipt, so
 * they come from guardrail_blocks. Counts and ids only: never the matched text.
 */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { recentReceipts } from "../receipts/index.ts";
import { countGuardrails, recentBlocks } from "./store.ts";

export const FINDINGS_LIMIT = { min: 1, max: 1000, default: 200 } as const;

interface Finding {
  guardrail_id: string | null;
  detector: string;
  direction: string;
  action: string;
  count: number;
}

interface FindingEvent {
  at: number;
  kind: "receipt" | "blocked";
  receipt_id: string | null;
  model: string | null;
  key_id: string | null;
  guardrail_ids: string[];
  findings: Finding[];
}

/** "gr_…:pii:input:redact:2" → a finding. */
function parseEntry(entry: unknown): Finding | null {
  if (typeof entry !== "string") return null;
  const [guardrailId, detector, direction, action, count] = entry.split(":");
  const n = Number(count);
  if (!guardrailId || !detector || !direction || !action || !Number.isSafeInteger(n)) return null;
  return { guardrail_id: guardrailId, detector, direction, action, count: n };
}

export function guardrailFindings(ctx: Context, accountId: string, limit: number) {
  const receipts = recentReceipts(ctx, accountId, limit);
  const events: FindingEvent[] = [];
  for (const r of receipts) {
    const stamp = (r.payload.attestations as Record<string, { ids?: unknown; findings?: unknown }> | undefined)?.guardrails;
    if (!stamp) continue;
    const ids = Array.isArray(stamp.ids) ? stamp.ids.filter((x): x is string => typeof x === "string") : [];
    const findings = (Array.isArray(stamp.findings) ? stamp.findings : []).map(parseEntry).filter((f): f is Finding => f !== null);
    if (!findings.length) continue;
    events.push({ at: r.created_at, kind: "receipt", receipt_id: r.id, model: typeof r.payload.resource === "string" ? r.payload.resource : null, key_id: r.key_id, guardrail_ids: ids, findings });
  }
  const blocks = recentBlocks(ctx, accountId, limit);
  for (const b of blocks) {
    events.push({
      at: b.created_at,
      kind: "blocked",
      receipt_id: null,
      model: b.model,
      key_id: b.key_id,
      guardrail_ids: [b.guardrail_id],
      findings: [{ guardrail_id: b.guardrail_id, detector: b.detector, direction: b.direction, action: "block", count: 1 }],
    });
  }
  events.sort((a, b) => b.at - a.at);

  const totals = { redacted: 0, allowed: 0, blocked: blocks.length, by_detector: {} as Record<string, number>, by_direction: { input: 0, output: 0 } };
  for (const e of events) {
    for (const f of e.findings) {
      if (f.action === "redact") totals.redacted += f.count;
      else if (f.action === "allow") totals.allowed += f.count;
      totals.by_detector[f.detector] = (totals.by_detector[f.detector] ?? 0) + f.count;
      if (f.direction === "input" || f.direction === "output") totals.by_direction[f.direction] += f.count;
    }
  }
  return {
    events: events.map((e) => ({ ...e, at: isoTime(e.at) })),
    enforced: countGuardrails(ctx, accountId) > 0,
    scanned_receipts: receipts.length,
    blocked: blocks.length,
    totals,
    note: `counts from the guardrail stamps of the newest ${receipts.length} receipts and the newest ${blocks.length} blocked calls (blocked calls bill nothing and have no receipt); content-free: the matched text is never stored`,
  };
}
