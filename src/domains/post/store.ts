/**
 * Agent post's rows: post_settings (handle, postage, accept policy, allow and block lists) and
 * post_messages (one row per message, seen from the sender's and the recipient's side). The
 * only file that names them in SQL. Sealing and views are the services' business.
 */
import type { Context } from "../../context.ts";
import type { AcceptPolicy } from "./limits.ts";

export interface SettingsRecord {
  accountId: string;
  handle: string | null;
  postage: number;
  accept: AcceptPolicy;
  allow: string[];
  block: string[];
  updatedAt: number | null;
}

interface SettingsRow {
  account_id: string;
  handle: string | null;
  postage_micro_usd: number;
  accept: AcceptPolicy;
  allow_list: string;
  block_list: string;
  updated_at: number;
}

const settingsOf = (r: SettingsRow): SettingsRecord => ({
  accountId: r.account_id,
  handle: r.handle,
  postage: r.postage_micro_usd,
  accept: r.accept,
  allow: JSON.parse(r.allow_list) as string[],
  block: JSON.parse(r.block_list) as string[],
  updatedAt: r.updated_at,
});

export function settingsRow(ctx: Context, accountId: string): SettingsRecord | null {
  const row = ctx.db.query<SettingsRow, [string]>("SELECT * FROM post_settings WHERE account_id = ?").get(accountId);
  return row ? settingsOf(row) : null;
}

export function settingsByHandle(ctx: Context, handle: string): SettingsRecord | null {
  const row = ctx.db.query<SettingsRow, [string]>("SELECT * FROM post_settings WHERE handle = ?").get(handle);
  return row ? settingsOf(row) : null;
}

/** Writes the whole settings row (the caller merged the change into what was there). */
export function saveSettings(ctx: Context, s: SettingsRecord, at: number): void {
  ctx.db
    .query(
      `INSERT INTO post_settings (account_id, handle, postage_micro_usd, accept, allow_list, block_list, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
       ON CONFLICT (account_id) DO UPDATE SET handle = excluded.handle, postage_micro_usd = excluded.postage_micro_usd, accept = excluded.accept,
         allow_list = excluded.allow_list, block_list = excluded.block_list, updated_at = excluded.updated_at`,
    )
    .run(s.accountId, s.handle, s.postage, s.accept, JSON.stringify(s.allow), JSON.stringify(s.block), at);
}

export interface MessageRow {
  seq: number;
  id: string;
  thread_id: string;
  in_reply_to: string | null;
  sender_account_id: string;
  sender_key_id: string;
  sender_handle: string;
  recipient_account_id: string;
  recipient_handle: string;
  subject_sealed: string | null;
  body_sealed: string;
  postage_micro_usd: number;
  receipt_id: string;
  created_at: number;
  read_at: number | null;
  sender_deleted_at: number | null;
  recipient_deleted_at: number | null;
}

export type NewMessage = Omit<MessageRow, "seq" | "read_at" | "sender_deleted_at" | "recipient_deleted_at">;

export function insertMessage(ctx: Context, m: NewMessage): MessageRow {
  return ctx.db
    .query<MessageRow, (string | number | null)[]>(
      `INSERT INTO post_messages (id, thread_id, in_reply_to, sender_account_id, sender_key_id, sender_handle, recipient_account_id, recipient_handle,
         subject_sealed, body_sealed, postage_micro_usd, receipt_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      m.id,
      m.thread_id,
      m.in_reply_to,
      m.sender_account_id,
      m.sender_key_id,
      m.sender_handle,
      m.recipient_account_id,
      m.recipient_handle,
      m.subject_sealed,
      m.body_sealed,
      m.postage_micro_usd,
      m.receipt_id,
      m.created_at,
    )!;
}

export function messageById(ctx: Context, id: string): MessageRow | null {
  return ctx.db.query<MessageRow, [string]>("SELECT * FROM post_messages WHERE id = ?").get(id);
}

/** Messages in an account's inbox (deleted ones left out): what the inbox cap counts. */
export function inboxSize(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM post_messages WHERE recipient_account_id = ? AND recipient_deleted_at IS NULL").get(accountId)!.n;
}

export function unreadCount(ctx: Context, accountId: string): number {
  return ctx.db
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM post_messages WHERE recipient_account_id = ? AND recipient_deleted_at IS NULL AND read_at IS NULL")
    .get(accountId)!.n;
}

export type Box = "inbox" | "outbox";

/** One page of a box, newest first: rows with seq below `beforeSeq`, one more than `limit` (to tell whether another page exists). */
export function boxPage(ctx: Context, box: Box, accountId: string, beforeSeq: number, limit: number): MessageRow[] {
  const where = box === "inbox" ? "recipient_account_id = ? AND recipient_deleted_at IS NULL" : "sender_account_id = ? AND sender_deleted_at IS NULL";
  return ctx.db.query<MessageRow, [string, number, number]>(`SELECT * FROM post_messages WHERE ${where} AND seq < ? ORDER BY seq DESC LIMIT ?`).all(accountId, beforeSeq, limit + 1);
}

/** A thread's messages the account is a party to and has not deleted, oldest first. */
export function threadOf(ctx: Context, threadId: string, accountId: string, limit: number): MessageRow[] {
  return ctx.db
    .query<MessageRow, [string, string, number]>(
      `SELECT * FROM post_messages WHERE thread_id = ?1
         AND ((sender_account_id = ?2 AND sender_deleted_at IS NULL) OR (recipient_account_id = ?2 AND recipient_deleted_at IS NULL))
       ORDER BY seq LIMIT ?3`,
    )
    .all(threadId, accountId, limit);
}

/** The first read stands. */
export function markRead(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE post_messages SET read_at = ? WHERE id = ? AND read_at IS NULL").run(at, id);
}

/** Deletes one side's view; the row and its ciphertext go once both sides have deleted it. */
export function deleteSide(ctx: Context, id: string, side: "sender" | "recipient", at: number): void {
  ctx.db.query(`UPDATE post_messages SET ${side}_deleted_at = ? WHERE id = ? AND ${side}_deleted_at IS NULL`).run(at, id);
  ctx.db.query("DELETE FROM post_messages WHERE id = ? AND sender_deleted_at IS NOT NULL AND recipient_deleted_at IS NOT NULL").run(id);
}
