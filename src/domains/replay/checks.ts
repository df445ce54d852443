/**
 * What svc checks before it seals a capsule (docs/replay.md "What is checked"): the receipt is
 * content-free, so the request the caller re-supplies can be held only against what the receipt
 * states — the kind of call, the model, streaming, the run, the output budget, and the
 * fingerprints it carries (svc_context's Merkle root, the cited source set). The messages
 * themselves are not on the receipt and cannot be checked; the replay's verdict is the test.
 */
import { createHash } from "node:crypto";
import { ApiError } from "../../core/errors.ts";
import { MerkleTree } from "../../core/merkle.ts";

/** A receipt's decoded payload (receipts/mint.ts). */
export type Payload = Record<string, unknown>;

export type ContextDocument = string | { content: string } | { text: string };

export interface CapsuleRequest {
  model: string;
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  response_format?: { type: "json_object" | "text" };
  stream?: boolean;
  svc_run_id?: string;
  svc_context?: ContextDocument[];
  svc_source_set?: string;
}

const group = (payload: Payload, name: string): Record<string, unknown> | null => {
  const g = (payload.attestations as Record<string, unknown> | undefined)?.[name];
  return g && typeof g === "object" && !Array.isArray(g) ? (g as Record<string, unknown>) : null;
};

/** As inference reads a document: a string, else its `content`, else its `text`. */
const documentText = (doc: ContextDocument): string => {
  if (typeof doc === "string") return doc;
  const o = doc as { content?: unknown; text?: unknown };
  return typeof o.content === "string" ? o.content : String(o.text);
};

/** The Merkle root inference stamps for svc_context (sha256 of each document's UTF-8, RFC 6962 over the digests). */
export function contextRoot(docs: readonly ContextDocument[]): string {
  return MerkleTree.of(docs.map((d) => createHash("sha256").update(documentText(d), "utf8").digest())).root.toString("hex");
}

/** Refuses a receipt whose call a capsule cannot replay (422 not_replayable, naming where the receipt came from). */
export function checkReplayable(payload: Payload, param: string): void {
  const units = (payload.units ?? {}) as Record<string, unknown>;
  const refuse = (why: string) => new ApiError(422, "not_replayable", `${param}: ${why}`, { param });
  if (payload.kind !== "inference") throw refuse(`the receipt is of kind ${String(payload.kind)}; only model calls (kind inference) can be replayed`);
  if (payload.status !== "succeeded") throw refuse(`the call's status is ${String(payload.status)}; only a completed call has an output to compare`);
  if (units.api !== "chat") throw refuse(`the call came in on the ${String(units.api)} API; replays run chat completions only`);
  if (units.scrubbed !== undefined) throw refuse("the call was scrubbed (svc_scrub): what reached the upstream is not the request you hold");
}

/** The request's fields that contradict the receipt, in a fixed order ([] when none). */
export function mismatchedFields(payload: Payload, req: CapsuleRequest): string[] {
  const units = (payload.units ?? {}) as Record<string, unknown>;
  const wrong: string[] = [];
  const routedFrom = group(payload, "routing")?.routed_from;
  if (req.model !== payload.resource && req.model !== routedFrom) wrong.push("model");
  if ((req.stream ?? false) !== (units.stream ?? false)) wrong.push("stream");
  const budget = req.max_completion_tokens ?? req.max_tokens;
  if (budget !== undefined && typeof units.output_tokens === "number" && units.output_tokens > budget) wrong.push("max_tokens");
  if (req.svc_run_id !== undefined && req.svc_run_id !== payload.run_id) wrong.push("svc_run_id");
  const context = group(payload, "context");
  if ((context === null) !== (req.svc_context === undefined) || (context && req.svc_context && context.merkle_root !== contextRoot(req.svc_context))) wrong.push("svc_context");
  const sources = group(payload, "source_set");
  if ((sources?.id ?? undefined) !== req.svc_source_set) wrong.push("svc_source_set");
  return wrong;
}

export function checkMatches(payload: Payload, req: CapsuleRequest): void {
  const wrong = mismatchedFields(payload, req);
  if (!wrong.length) return;
  throw new ApiError(422, "receipt_mismatch", `request.${wrong[0]}: does not match what the receipt states (${wrong.map((f) => `request.${f}`).join(", ")}); nothing was sealed`, {
    param: `request.${wrong[0]}`,
    mismatched: wrong.map((f) => `request.${f}`),
  });
}
