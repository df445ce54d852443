/**
 * /v1/engine (spec §4.4 "Engine", session). Thin: each route validates, calls one service
 * function and shapes the answer. Rules: service.ts; inference through engine/<slug>: apply.ts;
 * docs: docs/engine.md.
 *
 *   POST   /v1/engine/builds               {slug, spec} → 201 a draft, the slug's next version
 *   GET    /v1/engine/builds               ?slug= → {builds}
 *   GET    /v1/engine/builds/:id
 *   DELETE /v1/engine/builds/:id           drafts only (409 otherwise)
 *   POST   /v1/engine/builds/:id/publish   draft → published (409 while another version of the slug is)
 *   POST   /v1/engine/builds/:id/unpublish published → retired
 *   GET    /v1/engine/resolve/:slug        the slug's published build (404 when none)
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { BUILDS_LIST_CAP } from "./limits.ts";
import * as M from "./models.ts";
import { createBuild, getBuild, listBuilds, publishBuild, removeBuild, resolveSlug, unpublishBuild } from "./service.ts";

const tags = ["engine"];
const security = [{ session: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function engineRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/engine" })
    .use(guards.session(ctx))
    .post(
      "/builds",
      ({ principal, body, set }) => {
        const build = createBuild(ctx, principal.accountId, body);
        set.status = 201;
        return build;
      },
      {
        body: M.CreateBody,
        // 409 draft_limit_reached
        response: { 201: M.Build, ...errors(409) },
        ...doc(
          "Create an engine build: a draft version of the slug with a pinned chat model, a system prompt and parameters",
          "spec_sha256 is the sha256 of the spec's canonical JSON (keys sorted, no whitespace, integers only), recomputable from the spec returned. See docs/engine.md.",
        ),
      },
    )
    .get("/builds", ({ principal, query }) => namedList("builds", listBuilds(ctx, principal.accountId, query.slug ?? null, BUILDS_LIST_CAP)), {
      query: M.ListQuery,
      response: { 200: M.BuildList },
      ...doc(`The account's engine builds, newest first, at most ${BUILDS_LIST_CAP} ({builds: [...]}); ?slug= for one slug's versions`),
    })
    .get("/builds/:id", ({ principal, params }) => getBuild(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Build },
      ...doc("One engine build with its spec"),
    })
    .delete(
      "/builds/:id",
      ({ principal, params }) => {
        removeBuild(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true as const };
      },
      {
        params: M.Params,
        // 409 build_not_draft
        response: { 200: M.BuildDeleted, ...errors(409) },
        ...doc("Delete a draft build (409 build_not_draft for a published or retired one: receipts name them)"),
      },
    )
    .post("/builds/:id/publish", ({ principal, params }) => publishBuild(ctx, principal.accountId, params.id), {
      params: M.Params,
      // 409 slug_already_published, build_retired, pinned_model_unavailable
      response: { 200: M.Build, ...errors(409) },
      ...doc(
        "Publish a draft: engine/<slug> then resolves to it (idempotent for the published build)",
        "At most one version of a slug is published: while another is, this answers 409 slug_already_published naming it; unpublish that one first. A retired build cannot be published again (409 build_retired).",
      ),
    })
    .post("/builds/:id/unpublish", ({ principal, params }) => unpublishBuild(ctx, principal.accountId, params.id), {
      params: M.Params,
      // 409 build_not_published (a draft)
      response: { 200: M.Build, ...errors(409) },
      ...doc("Retire a published build: engine/<slug> and its pin stop resolving (idempotent for a retired build)"),
    })
    .get("/resolve/:slug", ({ principal, params }) => resolveSlug(ctx, principal.accountId, params.slug), {
      params: M.SlugParams,
      response: { 200: M.Build },
      ...doc("The build engine/<slug> resolves to for this account: the slug's published version (404 when none is)"),
    });
}
