/**
 * engine_builds, the area's one table: the only file that names it in SQL. The spec is sealed
 * at rest (it carries the owner's system prompt); model, slug, version and status are in clear
 * for listing and resolving.
 */
import type { Context } from "../../context.ts";
import type { EngineSpec } from "./spec.ts";

export type BuildStatus = "draft" | "published" | "retired";

export interface BuildRecord {
  id: string;
  accountId: string;
  slug: string;
  version: number;
  model: string;
  spec: EngineSpec;
  specSha256: string;
  status: BuildStatus;
  createdAt: number;
  publishedAt: number | null;
  retiredAt: number | null;
}

interface Row {
  id: string;
  account_id: string;
  slug: string;
  version: number;
  model: string;
  spec_sealed: string;
  spec_sha256: string;
  status: BuildStatus;
  created_at: number;
  published_at: number | null;
  retired_at: number | null;
}

const COLUMNS = "id, account_id, slug, version, model, spec_sealed, spec_sha256, status, created_at, published_at, retired_at";

const specAad = (id: string) => `engine:${id}:spec`;

function recordOf(ctx: Context, r: Row): BuildRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    slug: r.slug,
    version: r.version,
    model: r.model,
    spec: JSON.parse(ctx.sealer.openText(r.spec_sealed, specAad(r.id))) as EngineSpec,
    specSha256: r.spec_sha256,
    status: r.status,
    createdAt: r.created_at,
    publishedAt: r.published_at,
    retiredAt: r.retired_at,
  };
}

/** Inserts a draft as the slug's next version (call inside a transaction, so two drafts cannot take the same number). */
export function insertDraft(ctx: Context, b: { id: string; accountId: string; slug: string; spec: EngineSpec; canonical: string; specSha256: string; at: number }): BuildRecord {
  const next = ctx.db
    .query<{ v: number }, [string, string]>("SELECT coalesce(max(version), 0) + 1 AS v FROM engine_builds WHERE account_id = ? AND slug = ?")
    .get(b.accountId, b.slug)!.v;
  ctx.db
    .query(`INSERT INTO engine_builds (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, 'draft', ?, NULL, NULL)`)
    .run(b.id, b.accountId, b.slug, next, b.spec.model, ctx.sealer.seal(b.canonical, specAad(b.id)), b.specSha256, b.at);
  return buildById(ctx, b.id)!;
}

export function buildById(ctx: Context, id: string): BuildRecord | null {
  const row = ctx.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM engine_builds WHERE id = ?`).get(id);
  return row ? recordOf(ctx, row) : null;
}

/** One account's builds, newest first (one slug's only, when given). */
export function buildsOf(ctx: Context, accountId: string, slug: string | null, limit: number): BuildRecord[] {
  const rows =
    slug === null
      ? ctx.db.query<Row, [string, number]>(`SELECT ${COLUMNS} FROM engine_builds WHERE account_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, limit)
      : ctx.db.query<Row, [string, string, number]>(`SELECT ${COLUMNS} FROM engine_builds WHERE account_id = ? AND slug = ? ORDER BY seq DESC LIMIT ?`).all(accountId, slug, limit);
  return rows.map((r) => recordOf(ctx, r));
}

/** The slug's published build of the account, or null. */
export function publishedBuild(ctx: Context, accountId: string, slug: string): BuildRecord | null {
  const row = ctx.db.query<Row, [string, string]>(`SELECT ${COLUMNS} FROM engine_builds WHERE account_id = ? AND slug = ? AND status = 'published'`).get(accountId, slug);
  return row ? recordOf(ctx, row) : null;
}

export function countDrafts(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM engine_builds WHERE account_id = ? AND status = 'draft'").get(accountId)!.n;
}

export function markPublished(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE engine_builds SET status = 'published', published_at = ? WHERE id = ? AND status = 'draft'").run(at, id);
}

export function markRetired(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE engine_builds SET status = 'retired', retired_at = ? WHERE id = ? AND status = 'published'").run(at, id);
}

export function deleteDraft(ctx: Context, id: string): void {
  ctx.db.query("DELETE FROM engine_builds WHERE id = ? AND status = 'draft'").run(id);
}
