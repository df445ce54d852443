/**
 * pob_subjects and pob_checks: the only file that names them in SQL. Sources are StoredSource
 * JSON (credentials already sealed by the evidence area); checks are append-only (the migration's
 * triggers refuse UPDATE and DELETE), and a subject is never deleted, so its slug stays taken.
 */
import type { Context } from "../../context.ts";
import type { EvidenceRef, StoredSource } from "../evidence/index.ts";
import type { CheckStatus } from "./line.ts";

export type SubjectStatus = "active" | "retired";
export type Trigger = "schedule" | "owner";

export interface SubjectRecord {
  id: string;
  accountId: string;
  slug: string;
  name: string;
  reserveSource: StoredSource;
  claimedSupply: string | null;
  supplySource: StoredSource | null;
  intervalS: number;
  status: SubjectStatus;
  nextCheckAt: number | null;
  lastOwnerCheckAt: number | null;
  createdAt: number;
  updatedAt: number;
  retiredAt: number | null;
}

interface SubjectRow {
  id: string;
  account_id: string;
  slug: string;
  name: string;
  reserve_source: string;
  claimed_supply: string | null;
  supply_source: string | null;
  interval_s: number;
  status: SubjectStatus;
  next_check_at: number | null;
  last_manual_at: number | null;
  created_at: number;
  updated_at: number;
  retired_at: number | null;
}

const subjectOf = (r: SubjectRow): SubjectRecord => ({
  id: r.id,
  accountId: r.account_id,
  slug: r.slug,
  name: r.name,
  reserveSource: JSON.parse(r.reserve_source) as StoredSource,
  claimedSupply: r.claimed_supply,
  supplySource: r.supply_source === null ? null : (JSON.parse(r.supply_source) as StoredSource),
  intervalS: r.interval_s,
  status: r.status,
  nextCheckAt: r.next_check_at,
  lastOwnerCheckAt: r.last_manual_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  retiredAt: r.retired_at,
});

export function slugTaken(ctx: Context, slug: string): boolean {
  return ctx.db.query<{ one: number }, [string]>("SELECT 1 AS one FROM pob_subjects WHERE slug = ?").get(slug) !== null;
}

export function countActive(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM pob_subjects WHERE account_id = ? AND status = 'active'").get(accountId)!.n;
}

export function insertSubject(
  ctx: Context,
  s: { id: string; accountId: string; slug: string; name: string; reserveSource: StoredSource; claimedSupply: string | null; supplySource: StoredSource | null; intervalS: number; at: number },
): void {
  ctx.db
    .query(
      `INSERT INTO pob_subjects (id, account_id, slug, name, reserve_source, claimed_supply, supply_source, interval_s, status, next_check_at, last_manual_at, created_at, updated_at, retired_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, NULL, ?, ?, NULL)`,
    )
    .run(s.id, s.accountId, s.slug, s.name, JSON.stringify(s.reserveSource), s.claimedSupply, s.supplySource === null ? null : JSON.stringify(s.supplySource), s.intervalS, s.at, s.at, s.at);
}

export function subjectById(ctx: Context, id: string): SubjectRecord | null {
  const row = ctx.db.query<SubjectRow, [string]>("SELECT * FROM pob_subjects WHERE id = ?").get(id);
  return row ? subjectOf(row) : null;
}

export function subjectBySlug(ctx: Context, slug: string): SubjectRecord | null {
  const row = ctx.db.query<SubjectRow, [string]>("SELECT * FROM pob_subjects WHERE slug = ?").get(slug);
  return row ? subjectOf(row) : null;
}

/** An account's subjects, newest first. */
export function subjectsOf(ctx: Context, accountId: string, limit: number): SubjectRecord[] {
  return ctx.db
    .query<SubjectRow, [string, number]>("SELECT * FROM pob_subjects WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?")
    .all(accountId, limit)
    .map(subjectOf);
}

/** Every subject (the public directory), newest first, and how many there are. */
export function allSubjects(ctx: Context, limit: number): { subjects: SubjectRecord[]; count: number } {
  const count = ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM pob_subjects").get()!.n;
  const subjects = ctx.db.query<SubjectRow, [number]>("SELECT * FROM pob_subjects ORDER BY created_at DESC, id DESC LIMIT ?").all(limit).map(subjectOf);
  return { subjects, count };
}

/** Ids of active subjects whose next check is due at `now`. */
export function dueSubjectIds(ctx: Context, now: number, limit: number): string[] {
  return ctx.db
    .query<{ id: string }, [number, number]>("SELECT id FROM pob_subjects WHERE status = 'active' AND next_check_at <= ? ORDER BY next_check_at LIMIT ?")
    .all(now, limit)
    .map((r) => r.id);
}

export function updateSubject(
  ctx: Context,
  id: string,
  s: { name: string; reserveSource: StoredSource; intervalS: number; nextCheckAt: number | null; at: number },
): void {
  ctx.db
    .query("UPDATE pob_subjects SET name = ?, reserve_source = ?, interval_s = ?, next_check_at = ?, updated_at = ? WHERE id = ?")
    .run(s.name, JSON.stringify(s.reserveSource), s.intervalS, s.nextCheckAt, s.at, id);
}

export function setNextCheck(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE pob_subjects SET next_check_at = ? WHERE id = ? AND status = 'active'").run(at, id);
}

export function markOwnerCheck(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE pob_subjects SET last_manual_at = ? WHERE id = ?").run(at, id);
}

export function markRetired(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE pob_subjects SET status = 'retired', next_check_at = NULL, retired_at = ?, updated_at = ? WHERE id = ? AND status = 'active'").run(at, at, id);
}

export interface CheckRecord {
  subjectId: string;
  seq: number;
  checkedAt: number;
  status: CheckStatus;
  reserve: string | null;
  supply: string | null;
  reason: string | null;
  triggeredBy: Trigger;
  line: string;
  lineSha256: string;
  signature: string;
  signer: string;
  evidence: { reserve: EvidenceRef | null; supply: EvidenceRef | null };
}

interface CheckRow {
  subject_id: string;
  seq: number;
  checked_at: number;
  status: CheckStatus;
  reserve: string | null;
  supply: string | null;
  reason: string | null;
  triggered_by: Trigger;
  line: string;
  line_sha256: string;
  signature: string;
  signer: string;
  evidence: string;
}

const checkOf = (r: CheckRow): CheckRecord => ({
  subjectId: r.subject_id,
  seq: r.seq,
  checkedAt: r.checked_at,
  status: r.status,
  reserve: r.reserve,
  supply: r.supply,
  reason: r.reason,
  triggeredBy: r.triggered_by,
  line: r.line,
  lineSha256: r.line_sha256,
  signature: r.signature,
  signer: r.signer,
  evidence: JSON.parse(r.evidence) as CheckRecord["evidence"],
});

const CHECK_COLUMNS = "subject_id, seq, checked_at, status, reserve, supply, reason, triggered_by, line, line_sha256, signature, signer, evidence";

/** The seq the subject's next check takes (call inside the transaction that inserts it). */
export function nextSeq(ctx: Context, subjectId: string): number {
  return ctx.db.query<{ s: number }, [string]>("SELECT coalesce(max(seq), 0) + 1 AS s FROM pob_checks WHERE subject_id = ?").get(subjectId)!.s;
}

export function insertCheck(ctx: Context, accountId: string, c: CheckRecord): void {
  ctx.db
    .query(`INSERT INTO pob_checks (${CHECK_COLUMNS}, account_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(c.subjectId, c.seq, c.checkedAt, c.status, c.reserve, c.supply, c.reason, c.triggeredBy, c.line, c.lineSha256, c.signature, c.signer, JSON.stringify(c.evidence), accountId);
}

/** One page of a subject's checks, newest first: seq below `beforeSeq`, one more than `limit` (to tell whether another page exists). */
export function checksPage(ctx: Context, subjectId: string, beforeSeq: number, limit: number): CheckRecord[] {
  return ctx.db
    .query<CheckRow, [string, number, number]>(`SELECT ${CHECK_COLUMNS} FROM pob_checks WHERE subject_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
    .all(subjectId, beforeSeq, limit + 1)
    .map(checkOf);
}

export function latestCheck(ctx: Context, subjectId: string): { check: CheckRecord | null; count: number } {
  const row = ctx.db.query<CheckRow, [string]>(`SELECT ${CHECK_COLUMNS} FROM pob_checks WHERE subject_id = ? ORDER BY seq DESC LIMIT 1`).get(subjectId);
  // seq runs 1, 2, 3… with no gaps and checks are never deleted, so the latest seq is the count.
  return { check: row ? checkOf(row) : null, count: row ? row.seq : 0 };
}
