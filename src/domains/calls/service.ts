/**
 * Sealed calls' rules (docs/calls.md): commit a text's fingerprint now — sha256(salt || text),
 * stated in the commit's signed receipt and put under an anchored Merkle root — and reveal the
 * text and salt later, so anyone can recompute the commitment. An account holds at most 500
 * calls (spec §8).
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Context } from "../../context.ts";
import { anchorState, callAnchor } from "./anchoring.ts";
import { COMMITMENT_ALG, commitmentOf, newSalt } from "./commitment.ts";
import { CALLS_CAP, SALT_BYTES } from "./limits.ts";
// Types only: models.ts reads limits.ts, and the shapes served are declared there once.
import type { Call, CallSummary, TrustModel } from "./models.ts";
import { callById, callsOf, type CallRecord, countOfAccount, insertCall, markRevealed, type Secret, secretOf } from "./store.ts";

export type CallView = Static<typeof Call>;
type SummaryView = Static<typeof CallSummary>;

export interface CallCaller {
  accountId: string;
  keyId: string;
}

/** What the lists state beside the calls (spec §2.1 trust_model): what a reader has to trust, and what it can check. */
export const TRUST_MODEL: Static<typeof TrustModel> = {
  commitment:
    "the commitment is sha256(salt || text) (docs/calls.md): after reveal anyone recomputes it from text and salt_hex; a fixed 32-byte salt makes the split between salt and text unambiguous, so no other text matches.",
  custody:
    "mode text: svc made the salt and holds text and salt sealed at rest until reveal — you trust svc not to disclose them early. Mode commitment: svc never saw the text before reveal; it checks the revealed text and salt against the commitment and stores them only when they match.",
  receipt: "the commit's receipt (kind sealed_call), signed with EIP-191 by the key at GET /v1/receipts/pubkey, states the commitment and when it was made; it never carries the text.",
  anchor:
    "commits are gathered under Merkle roots over their receipts and anchored (svc's signed log at once, an EVM transaction when a chain is configured): an anchored root shows the commitment existed by then, independently of svc's clock.",
};

/** Commits between the cap check and their row (the meter's awaits): counted against the cap so concurrent commits cannot pass it. */
const inFlight = new WeakMap<Context, Map<string, number>>();

function holdSlot(ctx: Context, accountId: string): () => void {
  let counts = inFlight.get(ctx);
  if (!counts) inFlight.set(ctx, (counts = new Map()));
  const pending = counts.get(accountId) ?? 0;
  if (countOfAccount(ctx, accountId) + pending >= CALLS_CAP) {
    throw new ApiError(409, "call_limit_reached", `this account has ${CALLS_CAP} sealed calls, the most allowed`, { limit: CALLS_CAP });
  }
  counts.set(accountId, pending + 1);
  return () => {
    const left = (counts.get(accountId) ?? 1) - 1;
    if (left > 0) counts.set(accountId, left);
    else counts.delete(accountId);
  };
}

const publicUrl = (ctx: Context, id: string) => `${ctx.config.public_url}/v1/calls/public/${encodeURIComponent(id)}`;

function callView(ctx: Context, call: CallRecord, secret: Secret | null): CallView {
  const revealed = call.state === "revealed" && secret !== null;
  return {
    id: call.id,
    mode: call.mode,
    state: call.state,
    commitment: call.commitment,
    commitment_alg: COMMITMENT_ALG,
    receipt: { receipt_id: call.receipt.id, receipt: call.receipt.receipt, signature: call.receipt.signature, signer: call.receipt.signer },
    anchor: callAnchor(ctx, call),
    text: revealed ? secret.text : null,
    salt_hex: revealed ? secret.salt.toString("hex") : null,
    public_url: publicUrl(ctx, call.id),
    committed_at: isoTime(call.createdAt),
    revealed_at: call.revealedAt === null ? null : isoTime(call.revealedAt),
    verify: `after reveal: sha256(bytes of salt_hex ‖ UTF-8 text) must equal commitment (${COMMITMENT_ALG}); the receipt's attestations.commitment.commitment must equal it too — check the receipt: POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt","signature"}, or recover its EIP-191 signer and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey; then the anchor as anchor.verify says (docs/calls.md)`,
  };
}

function summaryView(ctx: Context, call: CallRecord): SummaryView {
  return {
    id: call.id,
    key_id: call.keyId,
    mode: call.mode,
    state: call.state,
    commitment: call.commitment,
    receipt_id: call.receipt.id,
    anchor_state: anchorState(ctx, call),
    anchor_root: call.anchorRoot,
    public_url: publicUrl(ctx, call.id),
    committed_at: isoTime(call.createdAt),
    revealed_at: call.revealedAt === null ? null : isoTime(call.revealedAt),
  };
}

/** Exactly one of text and commitment; the refusal names the field. */
function sealedInput(input: { text?: string; commitment?: string }): { mode: "text" | "commitment"; commitment: string; secret: Secret | null } {
  if (input.text !== undefined && input.commitment !== undefined) throw invalidField("commitment", "give text or commitment, not both");
  if (input.commitment !== undefined) return { mode: "commitment", commitment: input.commitment.toLowerCase(), secret: null };
  if (input.text === undefined) throw invalidField("text", "give text (svc makes the salt) or commitment (you keep text and salt)");
  const salt = newSalt();
  return { mode: "text", commitment: commitmentOf(salt, input.text), secret: { text: input.text, salt } };
}

/**
 * POST /v1/calls/commit: the commitment is settled through the meter at the configured price
 * (0 still mints the receipt that states it), then stored; the next anchoring pass puts it
 * under a root. A refused commit (cap, credit) stores and bills nothing.
 */
export async function commitCall(ctx: Context, caller: CallCaller, input: { text?: string; commitment?: string }): Promise<CallView> {
  const { mode, commitment, secret } = sealedInput(input);
  const release = holdSlot(ctx, caller.accountId);
  try {
    const id = newId("call");
    const { settlement } = await meterWork(
      ctx.meter,
      ctx.log,
      { accountId: caller.accountId, keyId: caller.keyId, price: ctx.config.calls.commit_price_micro_usd, kind: "sealed_call", resource: id },
      async () => ({
        result: null,
        status: "committed",
        units: { mode, attestations: { commitment: { commitment, alg: "sha256(salt||text)", salt_bytes: SALT_BYTES, mode } } },
      }),
    );
    // Receipts are minted in every settle (the receipts area); a settle without one is a broken deployment.
    if (!settlement.receipt) throw new Error("the commit's settle minted no receipt");
    insertCall(ctx, { id, accountId: caller.accountId, keyId: caller.keyId, mode, commitment, receipt: settlement.receipt, createdAt: ctx.clock.now() }, secret);
    return callView(ctx, callById(ctx, id)!, null);
  } finally {
    release();
  }
}

/** Another account's call answers the same 404 as an unknown one. */
function ownCall(ctx: Context, accountId: string, id: string): CallRecord {
  const call = callById(ctx, id);
  if (!call || call.accountId !== accountId) throw notFound("call");
  return call;
}

/**
 * POST /v1/calls/commit/:id/reveal: committed → revealed. Mode text takes no text or salt (svc
 * holds them); mode commitment takes both and stores them only when they recompute the
 * commitment (422 commitment_mismatch otherwise). Revealing again answers the revealed call.
 */
export function revealCall(ctx: Context, accountId: string, id: string, body: { text?: string; salt_hex?: string }): CallView {
  const call = ownCall(ctx, accountId, id);
  if (call.state === "committed") {
    let supplied: Secret | null = null;
    if (call.mode === "text") {
      const extra = body.text !== undefined ? "text" : body.salt_hex !== undefined ? "salt_hex" : null;
      if (extra) throw invalidField(extra, "this call was committed with text: svc holds its text and salt, so reveal takes neither");
    } else {
      if (body.text === undefined) throw invalidField("text", "this call was committed with a bare commitment: send the text and salt_hex it was made from");
      if (body.salt_hex === undefined) throw invalidField("salt_hex", `this call was committed with a bare commitment: send the ${SALT_BYTES}-byte salt it was made from, in hex`);
      supplied = { text: body.text, salt: Buffer.from(body.salt_hex, "hex") };
      if (commitmentOf(supplied.salt, supplied.text) !== call.commitment) {
        throw new ApiError(422, "commitment_mismatch", "sha256(salt || text) of what was sent does not equal the call's commitment; nothing was revealed", { param: "text" });
      }
    }
    markRevealed(ctx, call.id, ctx.clock.now(), supplied);
  }
  return callView(ctx, callById(ctx, call.id)!, secretOf(ctx, call.id));
}

/** GET /v1/calls (keyId null: every call of the account) and GET /v1/calls/mine (the calling key's), newest first, all of them. */
export function listCalls(ctx: Context, accountId: string, keyId: string | null): SummaryView[] {
  return callsOf(ctx, accountId, keyId, CALLS_CAP).map((c) => summaryView(ctx, c));
}

/** GET /v1/calls/public/:id: for anyone; text and salt only once revealed. */
export function publicCall(ctx: Context, id: string): CallView {
  const call = callById(ctx, id);
  if (!call) throw notFound("call");
  return callView(ctx, call, call.state === "revealed" ? secretOf(ctx, call.id) : null);
}
