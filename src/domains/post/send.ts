/**
 * Sending a message (docs/post.md "Sending"): the sender pays the recipient's postage as a
 * metered `post` usage event, and the same transaction credits the recipient and delivers the
 * message, so the charge, the credit and the message exist together or not at all.
 *
 *   refusals (403/404/409/429, nothing reserved) → reserve the postage (402 when short)
 *   → settle: capture it from the sender, mint the receipt (kind post), and within the settle's
 *     own savepoint re-check the policy and the inbox cap, credit the recipient, insert the row
 *   → anything refused inside the settle rolls all of it back and the reservation is released.
 *
 * The meter's hold is what makes concurrent sends safe: spendable credit is checked and reserved
 * in one guarded UPDATE, so N sends with credit for fewer deliver exactly as many as were paid.
 */
import type { Static } from "@sinclair/typebox";
import { ApiError, forbidden, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Settlement } from "../../core/meter.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import type { SentMessage } from "./models.ts";
import { effectiveSettings } from "./settings.ts";
import { inboxSize, insertMessage, messageById, type MessageRow, settingsByHandle, type SettingsRecord } from "./store.ts";
import { bodyAad, messageView, sideOf, subjectAad } from "./view.ts";

export type SentView = Static<typeof SentMessage>;

export interface Sender {
  accountId: string;
  keyId: string;
}

export interface SendInput {
  to: string;
  subject?: string;
  body: string;
  in_reply_to?: string;
  max_postage_micro_usd?: number;
}

const refused = (reason: "not_accepting" | "sender_refused", message: string) => forbidden("post_refused", message, { param: "to", reason });

/**
 * The recipient's policy, applied to the sender's handle. Whether a refusal came from the block
 * list or from the allow list is not said: a blocked sender learns only that it may not write.
 */
function admit(recipient: SettingsRecord, from: string): void {
  if (recipient.accept === "nobody") throw refused("not_accepting", `${recipient.handle} accepts no post`);
  if (recipient.block.includes(from) || (recipient.accept === "allow_list" && !recipient.allow.includes(from))) {
    throw refused("sender_refused", `${recipient.handle} does not accept post from ${from}`);
  }
}

function roomIn(ctx: Context, recipient: SettingsRecord): void {
  const cap = ctx.config.post.inbox_max_messages;
  if (inboxSize(ctx, recipient.accountId) >= cap) {
    throw new ApiError(429, "inbox_full", `${recipient.handle}'s inbox holds ${cap} messages, the most allowed; nothing was charged. Try again after the recipient deletes some`, { param: "to", limit: cap });
  }
}

function recipientOf(ctx: Context, handle: string): SettingsRecord {
  const recipient = settingsByHandle(ctx, handle);
  if (!recipient) throw new ApiError(404, "not_found", `handle ${handle} not found`, { param: "to" });
  return recipient;
}

/** What the sender's receipt states: handles and amounts as units, the content only as sha256 fingerprints. */
function receiptUnits(msg: { id: string; thread: string; inReplyTo: string | null; from: string; to: string; postage: number }, input: SendInput): Record<string, unknown> {
  const message: Record<string, string> = { message_id: msg.id, thread_id: msg.thread, body_sha256: sha256Hex(input.body) };
  if (input.subject !== undefined) message.subject_sha256 = sha256Hex(input.subject);
  if (msg.inReplyTo !== null) message.in_reply_to = msg.inReplyTo;
  return { from: msg.from, to: msg.to, postage_micro_usd: msg.postage, body_chars: input.body.length, attestations: { message } };
}

export async function sendMessage(ctx: Context, sender: Sender, input: SendInput): Promise<SentView> {
  const own = effectiveSettings(ctx, sender.accountId);
  const from = own.handle;
  if (from === null) throw forbidden("handle_required", "claim a handle before sending post: PUT /v1/post/settings {\"handle\": …}");
  if (input.to === from) throw invalidField("to", "is your own handle");
  const recipient = recipientOf(ctx, input.to);
  let parent: MessageRow | null = null;
  if (input.in_reply_to !== undefined) {
    parent = messageById(ctx, input.in_reply_to);
    if (!parent || !sideOf(parent, sender.accountId)) throw new ApiError(404, "not_found", "in_reply_to: message not found", { param: "in_reply_to" });
  }
  admit(recipient, from);
  const postage = recipient.postage;
  if (input.max_postage_micro_usd !== undefined && postage > input.max_postage_micro_usd) {
    throw new ApiError(409, "postage_above_max", `${recipient.handle}'s postage is ${postage} micro-USD, above max_postage_micro_usd (${input.max_postage_micro_usd}); nothing was charged`, {
      param: "max_postage_micro_usd",
      postage_micro_usd: postage,
    });
  }
  roomIn(ctx, recipient);

  const msg = { id: newId("pm"), thread: parent?.thread_id ?? newId("thr"), inReplyTo: parent?.id ?? null, from, to: recipient.handle!, postage };
  const reservation = await ctx.meter.reserveGrouped({ accountId: sender.accountId, keyId: sender.keyId, amount: postage, kind: "post", resource: msg.id });
  let row: MessageRow | null = null;
  let settlement: Settlement;
  try {
    settlement = await ctx.meter.settleGrouped(reservation, postage, { units: receiptUnits(msg, input), status: "delivered" }, (s) => {
      // Read again in this transaction: the policy or the inbox may have changed since the checks above.
      const now = effectiveSettings(ctx, recipient.accountId);
      admit(now, from);
      roomIn(ctx, now);
      if (!s.receipt) throw new Error("the postage's settle minted no receipt");
      if (postage > 0) ctx.ledger.credit(recipient.accountId, postage, { type: "post", id: msg.id, memo: `postage from ${from}` });
      row = insertMessage(ctx, {
        id: msg.id,
        thread_id: msg.thread,
        in_reply_to: msg.inReplyTo,
        sender_account_id: sender.accountId,
        sender_key_id: sender.keyId,
        sender_handle: from,
        recipient_account_id: recipient.accountId,
        recipient_handle: msg.to,
        subject_sealed: input.subject === undefined ? null : ctx.sealer.seal(input.subject, subjectAad(msg.id)),
        body_sealed: ctx.sealer.seal(input.body, bodyAad(msg.id)),
        postage_micro_usd: postage,
        receipt_id: s.receipt.id,
        created_at: ctx.clock.now(),
      });
    });
  } catch (err) {
    await ctx.meter.releaseGrouped(reservation).catch((e: unknown) => ctx.log.error("releasing the postage of an undelivered message failed", { error: e instanceof Error ? e.message : String(e) }));
    throw err;
  }
  const receipt = settlement.receipt!;
  return { ...messageView(ctx, row!, sender.accountId), receipt: { receipt_id: receipt.id, receipt: receipt.receipt, signature: receipt.signature, signer: receipt.signer } };
}
