/**
 * The meter, for MCP tool calls: reserve the price, do the work, settle as an `mcp_call` usage
 * event (or release when the work failed; core/metered-work.ts), and put the signed receipt in the result's `_meta`
 * under "svc/receipt" (the receipt, its EIP-191 signature and signer: verify it with any
 * Ethereum library, or POST /v1/receipts/verify).
 */
import type { Settlement } from "../../core/meter.ts";
import { canonicalJson } from "../../core/canonical-json.ts";
import { type Metered, meterWork } from "../../core/metered-work.ts";
import type { MicroUsd } from "../../core/money.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";

export const RECEIPT_META = "svc/receipt";

export interface ReceiptMeta {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
  cost_micro_usd: number;
}

/**
 * sha256 (hex) of a JSON value: of its canonical JSON (keys sorted, no whitespace) when it holds
 * only integers, else of JSON.stringify (canonical JSON has no floats).
 */
export function fingerprint(value: unknown): string {
  let text: string;
  try {
    text = canonicalJson(value);
  } catch {
    text = JSON.stringify(value) ?? "null";
  }
  return sha256Hex(text);
}

export type { Metered };

/** An MCP tool call through the meter (core/metered-work.ts), as an `mcp_call` usage event. */
export function meterCall<T>(
  ctx: Context,
  call: { principal: ApiKeyPrincipal; price: MicroUsd; resource: string; runId?: string | null },
  work: () => Promise<Metered<T>>,
): Promise<{ result: T; settlement: Settlement }> {
  return meterWork(ctx.meter, ctx.log, { accountId: call.principal.accountId, keyId: call.principal.keyId, price: call.price, kind: "mcp_call", resource: call.resource, runId: call.runId }, work);
}

export function receiptMeta(settlement: Settlement): ReceiptMeta | null {
  const r = settlement.receipt;
  return r ? { id: r.id, receipt: r.receipt, signature: r.signature, signer: r.signer, cost_micro_usd: settlement.cost } : null;
}

/** The result with the receipt added to its _meta (whatever _meta the tool set is kept). */
export function withReceipt<R extends { _meta?: Record<string, unknown> }>(result: R, settlement: Settlement | ReceiptMeta | null): R {
  const meta = settlement && "usageEventId" in settlement ? receiptMeta(settlement) : settlement;
  if (!meta) return result;
  return { ...result, _meta: { ...result._meta, [RECEIPT_META]: meta } };
}
