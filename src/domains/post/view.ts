/**
 * A message as one of its two parties sees it: the recipient sees when it read it and not the
 * sender's receipt id; the sender sees its receipt id and never whether the recipient read it.
 * Subject and body are opened here, with AADs that bind each ciphertext to its message and field.
 */
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import type { Message } from "./models.ts";
import type { MessageRow } from "./store.ts";

export type MessageView = Static<typeof Message>;

export const subjectAad = (id: string) => JSON.stringify(["post_messages", id, "subject"]);
export const bodyAad = (id: string) => JSON.stringify(["post_messages", id, "body"]);

export function messageView(ctx: Context, row: MessageRow, viewer: string): MessageView {
  const incoming = row.recipient_account_id === viewer;
  return {
    id: row.id,
    thread_id: row.thread_id,
    in_reply_to: row.in_reply_to,
    direction: incoming ? "in" : "out",
    from: row.sender_handle,
    to: row.recipient_handle,
    subject: row.subject_sealed === null ? null : ctx.sealer.openText(row.subject_sealed, subjectAad(row.id)),
    body: ctx.sealer.openText(row.body_sealed, bodyAad(row.id)),
    postage_micro_usd: row.postage_micro_usd,
    receipt_id: incoming ? null : row.receipt_id,
    read_at: incoming && row.read_at !== null ? isoTime(row.read_at) : null,
    created_at: isoTime(row.created_at),
  };
}

/** The side of the message this account is on, if it still has the message in a box. */
export function sideOf(row: MessageRow, accountId: string): "sender" | "recipient" | null {
  if (row.recipient_account_id === accountId && row.recipient_deleted_at === null) return "recipient";
  if (row.sender_account_id === accountId && row.sender_deleted_at === null) return "sender";
  return null;
}
