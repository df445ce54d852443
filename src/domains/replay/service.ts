/**
 * Replay capsules' rules (docs/replay.md): seal a chat call's request, checked against the
 * call's content-free receipt, only on an explicit confirm_seal; run it again through the
 * metered pipeline (completeChat, exactly the model that served it) and say whether the new
 * output's sha256 equals the original's, with both signed receipts. DELETE destroys the sealed
 * content and keeps the row, so a replay after it is refused. Another account's capsule,
 * receipt or run answers the same 404 as an unknown one.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { completeChat } from "../inference/index.ts";
import { decodeReceipt, getReceipt, receiptsOfRun } from "../receipts/index.ts";
import { type CapsuleRequest, checkMatches, checkReplayable, contextRoot, type Payload } from "./checks.ts";
import { MAX_CAPSULES_PER_ACCOUNT } from "./limits.ts";
// Types only: models.ts reads limits.ts, and the shapes served are declared there once.
import type { Capsule, ReplayResult } from "./models.ts";
import { capsuleById, type CapsuleRecord, capsulesOf, countCapsules, destroyContent, insertCapsule, insertReplay, replaysOf, type StoredReceipt } from "./store.ts";

export type CapsuleView = Static<typeof Capsule>;
export type ReplayResultView = Static<typeof ReplayResult>;

export interface CreateCapsuleInput {
  receipt_id?: string;
  run_id?: string;
  confirm_seal?: boolean;
  request: CapsuleRequest;
  output?: string;
  output_sha256?: string;
}

/** What is sealed: the request as a replay sends it upstream again (svc_ fields are never sent upstream, so they are not in it). */
interface SealedRequest {
  model: string;
  messages: CapsuleRequest["messages"];
  max_tokens: number | null;
  temperature: number | null;
  json: boolean;
}

/** Binds a sealed request to its capsule: copied into another row, it fails to open. */
const aad = (accountId: string, capsuleId: string) => JSON.stringify(["replay_capsules", accountId, capsuleId]);

/** The original call: by receipt id, or the run's one chat inference receipt. */
function originalReceipt(ctx: Context, accountId: string, input: CreateCapsuleInput): { stored: StoredReceipt; payload: Payload; param: string } {
  if ((input.receipt_id === undefined) === (input.run_id === undefined)) throw invalidField("receipt_id", "name the call to seal: exactly one of receipt_id or run_id");
  if (input.receipt_id !== undefined) {
    const r = getReceipt(ctx, accountId, input.receipt_id);
    return { stored: { id: r.id, receipt: r.receipt, signature: r.signature, signer: r.signer }, payload: r.payload as Payload, param: "receipt_id" };
  }
  const rows = receiptsOfRun(ctx, accountId, input.run_id!);
  if (!rows.length) throw notFound("run");
  const calls = rows.filter((r) => r.kind === "inference");
  if (calls.length !== 1) {
    throw new ApiError(422, "ambiguous_run", `run_id: the run holds ${calls.length} inference receipts; a capsule seals one call, so name it with receipt_id`, {
      param: "run_id",
      receipt_ids: calls.map((r) => r.id).slice(0, 50),
    });
  }
  const row = calls[0]!;
  return { stored: { id: row.id, receipt: row.receipt, signature: row.signature, signer: row.signer }, payload: decodeReceipt(row.receipt) ?? {}, param: "run_id" };
}

function outputFingerprint(input: CreateCapsuleInput): string {
  if ((input.output === undefined) === (input.output_sha256 === undefined)) {
    throw invalidField("output", "state the original output: exactly one of output (the reply's text) or output_sha256 (the sha256 of its UTF-8 bytes)");
  }
  return input.output_sha256 ?? sha256Hex(input.output!);
}

function view(ctx: Context, c: CapsuleRecord): CapsuleView {
  const replays = replaysOf(ctx, c.id);
  return {
    id: c.id,
    receipt_id: c.original.id,
    run_id: c.runId,
    model: c.model,
    message_count: c.messageCount,
    parameters: c.parameters,
    request_sha256: c.requestSha256,
    output_sha256: c.outputSha256,
    context_merkle_root: c.contextRoot,
    source_set: c.sourceSet,
    sealed: c.sealed !== null,
    destroyed_at: c.destroyedAt === null ? null : isoTime(c.destroyedAt),
    replay_count: replays.count,
    last_replay: replays.last && {
      receipt_id: replays.last.receiptId,
      output_sha256: replays.last.outputSha256,
      matches: replays.last.matches,
      replayed_at: isoTime(replays.last.createdAt),
    },
    created_at: isoTime(c.createdAt),
  };
}

function ownCapsule(ctx: Context, accountId: string, id: string): CapsuleRecord {
  const c = capsuleById(ctx, id);
  if (!c || c.accountId !== accountId) throw notFound("capsule");
  return c;
}

/**
 * POST /v1/replay/capsules. Every refusal comes before anything is written: confirm_seal, the
 * receipt (the account's own, a completed chat call), the request against what the receipt
 * states, the output's fingerprint, the per-account cap.
 */
export function createCapsule(ctx: Context, accountId: string, input: CreateCapsuleInput): CapsuleView {
  if (input.confirm_seal !== true) {
    throw invalidField("confirm_seal", "must be true: a capsule keeps the request's content (sealed at rest) until you DELETE it");
  }
  const { stored, payload, param } = originalReceipt(ctx, accountId, input);
  checkReplayable(payload, param);
  const req = input.request;
  checkMatches(payload, req);
  const outputSha256 = outputFingerprint(input);
  const sealedRequest: SealedRequest = {
    // The model that served the call (the receipt's resource), even when the request named a model the account routes elsewhere.
    model: String(payload.resource),
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    max_tokens: req.max_completion_tokens ?? req.max_tokens ?? null,
    temperature: req.temperature ?? null,
    json: req.response_format?.type === "json_object",
  };
  const text = JSON.stringify(sealedRequest);
  const sourceSet = ((payload.attestations as Record<string, Record<string, unknown>> | undefined)?.source_set ?? null) as { id: string; fingerprint: string } | null;
  const id = newId("rcap");
  const record: CapsuleRecord = {
    id,
    accountId,
    original: stored,
    runId: typeof payload.run_id === "string" ? payload.run_id : null,
    model: sealedRequest.model,
    messageCount: sealedRequest.messages.length,
    parameters: { max_tokens: sealedRequest.max_tokens, temperature: sealedRequest.temperature, json: sealedRequest.json },
    requestSha256: sha256Hex(text),
    outputSha256,
    contextRoot: req.svc_context ? contextRoot(req.svc_context) : null,
    sourceSet: sourceSet && { id: String(sourceSet.id), fingerprint: String(sourceSet.fingerprint) },
    sealed: ctx.sealer.seal(text, aad(accountId, id)),
    destroyedAt: null,
    createdAt: ctx.clock.now(),
  };
  ctx.tx.run(() => {
    if (countCapsules(ctx, accountId) >= MAX_CAPSULES_PER_ACCOUNT) {
      throw new ApiError(409, "capsule_limit_reached", `this account holds ${MAX_CAPSULES_PER_ACCOUNT} capsules, the most allowed (destroyed ones included)`, { limit: MAX_CAPSULES_PER_ACCOUNT });
    }
    insertCapsule(ctx, record);
  });
  return view(ctx, record);
}

export function listCapsules(ctx: Context, accountId: string): CapsuleView[] {
  return capsulesOf(ctx, accountId, MAX_CAPSULES_PER_ACCOUNT).map((c) => view(ctx, c));
}

export function getCapsule(ctx: Context, accountId: string, id: string): CapsuleView {
  return view(ctx, ownCapsule(ctx, accountId, id));
}

/** Destroys the sealed request; the row stays (fingerprints, receipts, replays). Idempotent: the first destroyed_at stands. */
export function destroyCapsule(ctx: Context, accountId: string, id: string): CapsuleView {
  const c = ownCapsule(ctx, accountId, id);
  destroyContent(ctx, c.id, ctx.clock.now());
  return getCapsule(ctx, accountId, id);
}

/**
 * Runs the sealed request again as the account (no key: the owner's session started it), billed
 * like any chat call with its own receipt, on exactly the capsule's model. A destroyed capsule
 * is refused 409 before anything is reserved.
 */
export async function replayCapsule(ctx: Context, accountId: string, id: string, signal: AbortSignal): Promise<ReplayResultView> {
  const c = ownCapsule(ctx, accountId, id);
  if (c.sealed === null) {
    throw new ApiError(409, "capsule_destroyed", `capsule ${c.id}: its sealed request was destroyed at ${isoTime(c.destroyedAt!)} (DELETE); there is nothing to replay, and nothing was billed`);
  }
  const req = JSON.parse(ctx.sealer.openText(c.sealed, aad(accountId, c.id))) as SealedRequest;
  const answer = await completeChat(ctx, {
    caller: { accountId, keyId: null },
    model: req.model,
    messages: req.messages,
    maxTokens: req.max_tokens ?? undefined,
    temperature: req.temperature ?? undefined,
    json: req.json,
    exactModel: true,
    signal,
  });
  // Receipts are minted in every settle (the receipts area); a settle without one is a broken deployment.
  const receipt = answer.settlement.receipt;
  if (!receipt) throw new Error("the replay's settle minted no receipt");
  const outputSha256 = sha256Hex(answer.text);
  const matches = outputSha256 === c.outputSha256;
  const at = ctx.clock.now();
  insertReplay(ctx, c.id, { receiptId: receipt.id, outputSha256, matches, createdAt: at });
  return {
    capsule_id: c.id,
    matches,
    output: answer.text,
    original: { receipt_id: c.original.id, receipt: c.original.receipt, signature: c.original.signature, signer: c.original.signer, output_sha256: c.outputSha256 },
    replay: {
      receipt_id: receipt.id,
      receipt: receipt.receipt,
      signature: receipt.signature,
      signer: receipt.signer,
      output_sha256: outputSha256,
      provider: answer.provider,
      cost_micro_usd: answer.settlement.cost,
    },
    replayed_at: isoTime(at),
    verify: `both receipts verify alone: POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt","signature"}, or recover the EIP-191 signer and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey. output_sha256 is the sha256 of the reply text's UTF-8 bytes: the original's as you stated it when sealing, the replay's as svc computed it (docs/replay.md)`,
  };
}
