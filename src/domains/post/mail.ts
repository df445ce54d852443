/**
 * Reading post (docs/post.md "Reading"): the inbox and the outbox, paged newest first by a keyset
 * cursor (spec §2.2), one message, marking it read, deleting it from one's own box, a thread.
 * A message is visible only to its sender and its recipient, each until they delete it; anyone
 * else, and a side that deleted it, gets the same 404 as for an unknown id.
 */
import { invalidCursor } from "../../core/cursor.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { THREAD_CAP } from "./limits.ts";
import { type Box, boxPage, deleteSide, markRead, messageById, type MessageRow, threadOf, unreadCount } from "./store.ts";
import { messageView, type MessageView, sideOf } from "./view.ts";

/** Bound to the box and the account: a cursor of the other box or of another account answers 400. */
const cursorScope = (box: Box, accountId: string) => `GET /v1/post/${box}\n${accountId}`;

export interface BoxPage {
  rows: MessageView[];
  next_cursor: string | null;
}

export function listBox(ctx: Context, box: Box, accountId: string, page: { limit: number; cursor?: string }): BoxPage {
  const scope = cursorScope(box, accountId);
  let before = Number.MAX_SAFE_INTEGER;
  if (page.cursor !== undefined) {
    const [seq, ...rest] = ctx.cursors.decode(scope, page.cursor);
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1 || rest.length) throw invalidCursor();
    before = seq;
  }
  const rows = boxPage(ctx, box, accountId, before, page.limit);
  const more = rows.length > page.limit;
  if (more) rows.length = page.limit;
  return { rows: rows.map((r) => messageView(ctx, r, accountId)), next_cursor: more ? ctx.cursors.encode(scope, [rows.at(-1)!.seq]) : null };
}

export const unreadIn = (ctx: Context, accountId: string): number => unreadCount(ctx, accountId);

function visible(ctx: Context, accountId: string, id: string): { row: MessageRow; side: "sender" | "recipient" } {
  const row = messageById(ctx, id);
  const side = row && sideOf(row, accountId);
  if (!row || !side) throw notFound("message");
  return { row, side };
}

export function getMessage(ctx: Context, accountId: string, id: string): MessageView {
  return messageView(ctx, visible(ctx, accountId, id).row, accountId);
}

/** The recipient marks a message read (the first time stands); for its sender it is not in the inbox, so 404. */
export function readMessage(ctx: Context, accountId: string, id: string): MessageView {
  return ctx.tx.run(() => {
    const { side } = visible(ctx, accountId, id);
    if (side !== "recipient") throw notFound("message");
    markRead(ctx, id, ctx.clock.now());
    return messageView(ctx, messageById(ctx, id)!, accountId);
  });
}

/** Removes the message from the caller's box only; the other party keeps theirs. */
export function deleteMessage(ctx: Context, accountId: string, id: string): { id: string; deleted: true } {
  return ctx.tx.run(() => {
    const { side } = visible(ctx, accountId, id);
    deleteSide(ctx, id, side, ctx.clock.now());
    return { id, deleted: true as const };
  });
}

/** A thread's messages the caller sent or received and still has, oldest first, at most THREAD_CAP; 404 when there are none. */
export function getThread(ctx: Context, accountId: string, threadId: string): MessageView[] {
  const rows = threadOf(ctx, threadId, accountId, THREAD_CAP);
  if (!rows.length) throw notFound("thread");
  return rows.map((r) => messageView(ctx, r, accountId));
}
