/**
 * A subject's checks, newest first, paged by seq (spec §2.6: "history paged with before_seq"):
 * a page holds checks with seq below ?before_seq=, and next_before_seq is the last seq served
 * when older checks remain. seq never has gaps and checks are never removed, so a page is
 * stable however many checks are published meanwhile. Every status is listed: UNAVAILABLE
 * checks are never filtered out.
 */
import { parseLimit } from "../../core/envelopes.ts";
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { CHECKS_LIMIT } from "./limits.ts";
import { checksPage, type SubjectRecord } from "./store.ts";
import { type CheckView, checkView } from "./view.ts";

export interface PageQuery {
  limit?: string;
  before_seq?: string;
}

function beforeSeqOf(raw: string | undefined): number {
  if (raw === undefined || raw === "") return Number.MAX_SAFE_INTEGER;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw invalidField("before_seq", "must be a whole number of at least 1 (a next_before_seq you received)");
  return Number(raw);
}

export function checkHistory(ctx: Context, subject: SubjectRecord, query: PageQuery): { checks: CheckView[]; next_before_seq: number | null } {
  const limit = parseLimit(query.limit, CHECKS_LIMIT);
  const rows = checksPage(ctx, subject.id, beforeSeqOf(query.before_seq), limit);
  const page = rows.slice(0, limit);
  return { checks: page.map((c) => checkView(subject.slug, c)), next_before_seq: rows.length > limit ? page[page.length - 1]!.seq : null };
}
