/**
 * Engine builds (spec §2.6, §3, §4.4; docs/engine.md). The rules:
 * - A build is created as a draft, the next version of its slug in the account; its spec's
 *   model must be a chat model of the catalogue as it is now.
 * - draft → published → retired, and only that way (spec §3). At most one version of a slug is
 *   published: publishing while another version is published is refused (409
 *   slug_already_published) — the spec's publish row names no side effect, so publishing
 *   never retires a version behind the owner's back. Unpublishing retires: a retired build
 *   never resolves again, by slug or by pin, and cannot be republished.
 * - Only drafts can be deleted; published and retired builds stay, because receipts name them.
 * - Everything is the owner's: another account's build id or slug answers the same 404 as an
 *   unknown one.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { MAX_DRAFTS_PER_ACCOUNT } from "./limits.ts";
import { type EngineParameters, type EngineSpec, normalizeSpec, specCanonical, specSha256 } from "./spec.ts";
import { type BuildRecord, buildById, buildsOf, countDrafts, deleteDraft, insertDraft, markPublished, markRetired, publishedBuild, type BuildStatus } from "./store.ts";

/** How a model name reaches an engine: `engine/<slug>`, or `engine/<slug>@<version>` to pin one version. */
export const ENGINE_PREFIX = "engine/";

export interface BuildView {
  id: string;
  slug: string;
  version: number;
  status: BuildStatus;
  model_name: string;
  pin: string;
  spec: EngineSpec;
  spec_sha256: string;
  created_at: string;
  published_at: string | null;
  retired_at: string | null;
}

export function buildView(b: BuildRecord): BuildView {
  return {
    id: b.id,
    slug: b.slug,
    version: b.version,
    status: b.status,
    model_name: `${ENGINE_PREFIX}${b.slug}`,
    pin: `${ENGINE_PREFIX}${b.slug}@${b.version}`,
    spec: b.spec,
    spec_sha256: b.specSha256,
    created_at: isoTime(b.createdAt),
    published_at: b.publishedAt === null ? null : isoTime(b.publishedAt),
    retired_at: b.retiredAt === null ? null : isoTime(b.retiredAt),
  };
}

/** Whether the catalogue serves the model now as a chat model (engines are chat only; an engine never pins another engine). */
function servedChatModel(ctx: Context, model: string): boolean {
  const found = ctx.catalog.current().model(model);
  return found !== undefined && found.type === "chat";
}

const draftLimit = () =>
  new ApiError(409, "draft_limit_reached", `this account has ${MAX_DRAFTS_PER_ACCOUNT} draft engine builds, the most allowed; publish or delete one first`, { limit: MAX_DRAFTS_PER_ACCOUNT });

export interface CreateInput {
  slug: string;
  spec: { model: string; system_prompt: string; parameters?: EngineParameters };
}

export function createBuild(ctx: Context, accountId: string, input: CreateInput): BuildView {
  if (!input.spec.system_prompt.trim()) throw invalidField("spec.system_prompt", "must not be blank");
  if (!servedChatModel(ctx, input.spec.model)) throw invalidField("spec.model", `${input.spec.model} is not a chat model of this deployment's catalogue (GET /v1/models lists them)`);
  const spec = normalizeSpec(input.spec);
  return ctx.tx.run(() => {
    if (countDrafts(ctx, accountId) >= MAX_DRAFTS_PER_ACCOUNT) throw draftLimit();
    const record = insertDraft(ctx, { id: newId("eng"), accountId, slug: input.slug, spec, canonical: specCanonical(spec), specSha256: specSha256(spec), at: ctx.clock.now() });
    return buildView(record);
  });
}

export function listBuilds(ctx: Context, accountId: string, slug: string | null, limit: number): BuildView[] {
  return buildsOf(ctx, accountId, slug, limit).map(buildView);
}

/** Another account's build answers the same 404 as an unknown one. */
function ownBuild(ctx: Context, accountId: string, id: string): BuildRecord {
  const b = buildById(ctx, id);
  if (!b || b.accountId !== accountId) throw notFound("engine build");
  return b;
}

export function getBuild(ctx: Context, accountId: string, id: string): BuildView {
  return buildView(ownBuild(ctx, accountId, id));
}

export function removeBuild(ctx: Context, accountId: string, id: string): void {
  ctx.tx.run(() => {
    const b = ownBuild(ctx, accountId, id);
    if (b.status !== "draft") {
      throw new ApiError(409, "build_not_draft", `engine build ${b.id} is ${b.status}; only drafts can be deleted (receipts name published and retired builds)`, { status: b.status });
    }
    deleteDraft(ctx, b.id);
  });
}

/** Publishes a draft; publishing the published build again changes nothing. */
export function publishBuild(ctx: Context, accountId: string, id: string): BuildView {
  return ctx.tx.run(() => {
    const b = ownBuild(ctx, accountId, id);
    if (b.status === "published") return buildView(b);
    if (b.status === "retired") throw new ApiError(409, "build_retired", `engine build ${b.id} is retired and cannot be published again; create a new build from its spec`, { status: b.status });
    const current = publishedBuild(ctx, accountId, b.slug);
    if (current) {
      throw new ApiError(
        409,
        "slug_already_published",
        `version ${current.version} of ${b.slug} (${current.id}) is published; unpublish it first (at most one version of a slug is published)`,
        { published_build_id: current.id, published_version: current.version },
      );
    }
    if (!servedChatModel(ctx, b.spec.model)) {
      throw new ApiError(409, "pinned_model_unavailable", `the build pins ${b.spec.model}, which is no longer a chat model of this deployment's catalogue`, { model: b.spec.model });
    }
    markPublished(ctx, b.id, ctx.clock.now());
    return buildView(buildById(ctx, b.id)!);
  });
}

/** Retires a published build; unpublishing a retired build again changes nothing. */
export function unpublishBuild(ctx: Context, accountId: string, id: string): BuildView {
  return ctx.tx.run(() => {
    const b = ownBuild(ctx, accountId, id);
    if (b.status === "retired") return buildView(b);
    if (b.status === "draft") throw new ApiError(409, "build_not_published", `engine build ${b.id} is a draft; only a published build can be unpublished`, { status: b.status });
    markRetired(ctx, b.id, ctx.clock.now());
    return buildView(buildById(ctx, b.id)!);
  });
}

/** The slug's published build of the account (GET /v1/engine/resolve/:slug); 404 when none is. */
export function resolveSlug(ctx: Context, accountId: string, slug: string): BuildView {
  const b = publishedBuild(ctx, accountId, slug);
  if (!b) throw notFound("published engine build");
  return buildView(b);
}

/** For inference: the build a model name resolves to for the account, or null (unknown, unpublished, retired, another account's, or a pin of a version that is not the published one). */
export function resolveModelName(ctx: Context, accountId: string, name: string): BuildRecord | null {
  const m = /^engine\/([a-z0-9-]{1,64})(?:@([1-9][0-9]{0,8}))?$/.exec(name);
  if (!m) return null;
  const b = publishedBuild(ctx, accountId, m[1]!);
  if (!b || (m[2] !== undefined && Number(m[2]) !== b.version)) return null;
  return b;
}
