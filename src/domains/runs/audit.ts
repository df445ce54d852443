/**
 * POST /v1/runs/:id/audit: the run's evidence (receipts, their signatures, the anchors of a
 * root over them, the spend controls of the keys that made them) laid against the controls of
 * a framework — the EU AI Act (Regulation (EU) 2024/1689) or SOC 2 (AICPA Trust Services
 * Criteria). It is an evidence mapping: what svc's own records show, control by control. It
 * is never a certification, an attestation or an audit opinion, and says so in every answer.
 *
 * Each control's status is computed from this run's records, not asserted:
 * evidence_present, partial (something is missing, named in `gaps`), or not_evidenced.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidField } from "../../core/errors.ts";
import { verifyStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import type { AnchorBlock } from "../anchors/index.ts";
import { type KeyRow, keyRowsOf } from "../keys/index.ts";
import { type MandateTerms, mandatesForKeys } from "../mandates/index.ts";
import { currentAnchor, runReceipts } from "./service.ts";

export const FRAMEWORKS = ["eu_ai_act", "soc2"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export const AUDIT_DISCLAIMER =
  "Evidence mapping, not a certification: this lists what svc's records show for this run against the framework's controls. " +
  "It is not an audit opinion or an attestation, does not establish compliance, and covers only what passed through svc.";

export function parseFramework(value: string | undefined): Framework[] {
  if (value === undefined || value === "") return [...FRAMEWORKS];
  if ((FRAMEWORKS as readonly string[]).includes(value)) return [value as Framework];
  throw invalidField("framework", `must be one of ${FRAMEWORKS.join(", ")} (or absent for both); got "${value.slice(0, 40)}"`);
}

interface KeyControls {
  key_id: string;
  kind: KeyRow["kind"];
  scopes: string[];
  monthly_cap_micro_usd: number | null;
  total_cap_micro_usd: number | null;
  /** The breaker in force: the key's own, else the deployment default; 0 = off. */
  circuit_breaker_micro_usd_per_minute: number;
  allowed_models: string[] | null;
  allowed_services: string[] | null;
  expires_at: string | null;
  revoked: boolean;
  frozen: boolean;
  delegated_from: string | null;
  mandate: { id: string; purpose: string; budget_micro_usd: number; valid_until: string } | null;
}

export interface RunEvidence {
  receipts: { count: number; kinds: string[]; statuses: Record<string, number>; cost_micro_usd: number; first_receipt_at: string; last_receipt_at: string; metadata_only: true };
  signatures: { scheme: string; signers: string[]; valid: number; invalid: number };
  anchor: AnchorBlock | null;
  anchored: boolean;
  spend_controls: { billing_enforced: boolean; note: string; keys: KeyControls[]; session_initiated_receipts: number };
}

type Status = "evidence_present" | "partial" | "not_evidenced";

export interface ControlMapping {
  id: string;
  title: string;
  status: Status;
  evidence: string[];
  gaps: string[];
}

function keyControls(ctx: Context, accountId: string, keyIds: string[]): KeyControls[] {
  if (!keyIds.length) return [];
  const rows = keyRowsOf(ctx, accountId, keyIds);
  const mandates = mandatesForKeys(ctx, rows.map((k) => k.id));
  const list = (json: string | null) => (json === null ? null : (JSON.parse(json) as string[]));
  return rows.map((k) => ({
    key_id: k.id,
    kind: k.kind,
    scopes: list(k.scopes) ?? [],
    monthly_cap_micro_usd: k.monthly_cap_micro_usd,
    total_cap_micro_usd: k.total_cap_micro_usd,
    circuit_breaker_micro_usd_per_minute: k.breaker_micro_usd_per_minute ?? ctx.config.keys.breaker_micro_usd_per_minute,
    allowed_models: list(k.allowed_models),
    allowed_services: list(k.allowed_services),
    expires_at: k.expires_at === null ? null : isoTime(k.expires_at),
    revoked: k.revoked_at !== null,
    frozen: k.frozen_at !== null,
    delegated_from: k.parent_id,
    mandate: mandateOf(mandates.get(k.id)),
  }));
}

function mandateOf(m: MandateTerms | undefined): KeyControls["mandate"] {
  return m ? { id: m.id, purpose: m.purpose, budget_micro_usd: m.budget_micro_usd, valid_until: isoTime(m.valid_until) } : null;
}

export function runEvidence(ctx: Context, accountId: string, runId: string): RunEvidence {
  const anchor = currentAnchor(ctx, accountId, runId); // 404 for an unknown run
  const receipts = runReceipts(ctx, accountId, runId);
  const statuses: Record<string, number> = {};
  let valid = 0;
  for (const r of receipts) {
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    // Re-checked now, from the stored strings: the signature still recovers to the recorded signer.
    if (verifyStatement(r.receipt, r.signature, [r.signer]).valid) valid++;
  }
  const keyIds = [...new Set(receipts.map((r) => r.key_id).filter((k): k is string => k !== null))];
  return {
    receipts: {
      count: receipts.length,
      kinds: [...new Set(receipts.map((r) => r.kind))].sort(),
      statuses,
      cost_micro_usd: receipts.reduce((sum, r) => sum + r.cost_micro_usd, 0),
      first_receipt_at: isoTime(receipts[0]!.created_at),
      last_receipt_at: isoTime(receipts[receipts.length - 1]!.created_at),
      metadata_only: true,
    },
    signatures: { scheme: "EIP-191 personal_sign, secp256k1", signers: [...new Set(receipts.map((r) => r.signer))], valid, invalid: receipts.length - valid },
    anchor,
    anchored: anchor?.anchors.some((a) => a.status === "anchored") ?? false,
    spend_controls: {
      billing_enforced: ctx.config.billing.enforced,
      note: "the keys' controls as configured now, not as they were at each call",
      keys: keyControls(ctx, accountId, keyIds),
      session_initiated_receipts: receipts.filter((r) => r.key_id === null).length,
    },
  };
}

// ---- the mappings ----------------------------------------------------------------------

const control = (id: string, title: string, evidence: string[], gaps: string[], present: boolean): ControlMapping => ({
  id,
  title,
  status: !present ? "not_evidenced" : gaps.length ? "partial" : "evidence_present",
  evidence: present ? evidence : [],
  gaps,
});

function facts(e: RunEvidence) {
  const keys = e.spend_controls.keys;
  const capped = keys.filter((k) => k.monthly_cap_micro_usd !== null || k.total_cap_micro_usd !== null);
  const breakers = keys.filter((k) => k.circuit_breaker_micro_usd_per_minute > 0);
  const scoped = keys.filter((k) => !k.scopes.includes("*") || k.allowed_models !== null || k.allowed_services !== null);
  return {
    log: `${e.receipts.count} signed receipt(s) of kind(s) ${e.receipts.kinds.join(", ")}, ${e.receipts.first_receipt_at} to ${e.receipts.last_receipt_at}, each with id, status, cost and timestamps`,
    metadata: "receipts hold metadata only (no prompt, completion, code or file content)",
    signatures: `${e.signatures.valid} of ${e.receipts.count} receipt signature(s) verify (${e.signatures.scheme}; signer(s) ${e.signatures.signers.join(", ")}); anyone can re-check them with POST /v1/receipts/verify`,
    anchor: e.anchor ? `Merkle root ${e.anchor.root} over all the run's receipts, anchored by ${e.anchor.anchors.filter((a) => a.status === "anchored").map((a) => a.backend).join(", ") || "nothing yet"}` : null,
    caps: capped.length ? `spend caps on ${capped.length} of ${keys.length} key(s)` : null,
    breakers: breakers.length ? `circuit breaker on ${breakers.length} of ${keys.length} key(s)` : null,
    mandates: keys.some((k) => k.mandate) ? `bounded mandate(s): ${keys.filter((k) => k.mandate).map((k) => k.mandate!.purpose).join("; ")}` : null,
    scoped: scoped.length ? `${scoped.length} of ${keys.length} key(s) limited by scopes or allowed models/services` : null,
    prepaid: e.spend_controls.billing_enforced ? "prepaid credit enforced: no call may drive the balance below zero" : null,
    keys,
    allValid: e.signatures.invalid === 0,
  };
}

const ANCHOR_GAP = "no anchored root over all the run's receipts yet: POST /v1/runs/{id}/proof anchors one";

function euAiAct(e: RunEvidence): ControlMapping[] {
  const f = facts(e);
  const oversight = [f.caps, f.breakers, f.mandates, f.prepaid, f.keys.length ? "keys can be revoked (cascading) or frozen at once" : null].filter((x): x is string => x !== null);
  return [
    control("Art. 12(1)", "Record-keeping: automatic recording of events over the system's lifetime", [f.log], [], e.receipts.count > 0),
    control("Art. 12(2)", "Record-keeping: logs enabling traceability of the system's functioning", [f.log, `grouped as run with ${e.receipts.count} ordered receipt(s)`], [], e.receipts.count > 0),
    control("Art. 13", "Transparency and provision of information to deployers", [f.signatures, f.metadata], f.allValid ? [] : [`${e.signatures.invalid} receipt signature(s) do not verify`], e.receipts.count > 0),
    control("Art. 14", "Human oversight: ability to intervene in or interrupt the system", oversight, f.caps ? [] : ["no spend cap on the run's keys"], oversight.length > 0),
    control("Art. 15", "Accuracy, robustness and cybersecurity: integrity of records", [f.signatures, f.anchor ?? ""].filter(Boolean), [...(f.allValid ? [] : ["invalid signatures"]), ...(e.anchored ? [] : [ANCHOR_GAP])], e.receipts.count > 0),
    control("Art. 19 / Art. 26(6)", "Keeping automatically generated logs", [f.log, f.anchor ?? ""].filter(Boolean), e.anchored ? [] : [ANCHOR_GAP], e.receipts.count > 0),
  ];
}

function soc2(e: RunEvidence): ControlMapping[] {
  const f = facts(e);
  const keyed = f.keys.length > 0;
  return [
    control("CC6.1", "Logical access security over protected information assets", keyed ? [`${f.keys.length} API key(s), stored only as sha256, made the run's calls`] : [], [], keyed),
    control("CC6.3", "Authorization and least privilege", [f.scoped, f.mandates].filter((x): x is string => x !== null), f.scoped ? [] : ["the run's keys hold every scope"], f.scoped !== null || f.mandates !== null),
    control("CC7.2", "Monitoring system components for anomalies", [f.log, f.breakers].filter((x): x is string => x !== null), f.breakers ? [] : ["no circuit breaker on the run's keys"], e.receipts.count > 0),
    control("PI1.3", "Processing is complete, accurate and authorised", [f.log, f.prepaid, f.caps].filter((x): x is string => x !== null), [], e.receipts.count > 0),
    control("PI1.4", "Outputs are complete, accurate and delivered", [f.signatures], f.allValid ? [] : ["invalid signatures"], e.receipts.count > 0),
    control("PI1.5", "Stored items are complete, accurate and protected", [f.signatures, f.anchor ?? ""].filter(Boolean), e.anchored ? [] : [ANCHOR_GAP], e.receipts.count > 0),
  ];
}

const FRAMEWORK_INFO: Record<Framework, { name: string; map: (e: RunEvidence) => ControlMapping[] }> = {
  eu_ai_act: { name: "EU AI Act (Regulation (EU) 2024/1689)", map: euAiAct },
  soc2: { name: "SOC 2 (AICPA Trust Services Criteria)", map: soc2 },
};

export function runAudit(ctx: Context, accountId: string, runId: string, framework: string | undefined) {
  const frameworks = parseFramework(framework);
  const evidence = runEvidence(ctx, accountId, runId);
  return {
    run_id: runId,
    kind: "evidence_mapping" as const,
    certification: false as const,
    disclaimer: AUDIT_DISCLAIMER,
    generated_at: isoTime(ctx.clock.now()),
    evidence,
    frameworks: frameworks.map((id) => ({ framework: id, name: FRAMEWORK_INFO[id].name, controls: FRAMEWORK_INFO[id].map(evidence) })),
  };
}
