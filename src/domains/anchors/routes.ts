/**
 * GET /v1/anchors/:root (public): a batch root with its ordered leaves and all its anchors.
 * Rules and the published fields: service.ts, roots.ts, docs/receipts.md.
 */
import { Elysia, t } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { ROOT_PATTERN } from "./roots.ts";
import { anchorDocument } from "./service.ts";

const tags = ["anchors"];

export function anchorRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/anchors" })
    .use(guards.public(ctx))
    .get("/:root", ({ params }) => anchorDocument(ctx, params.root), {
      params: t.Object({ root: t.String({ pattern: ROOT_PATTERN, error: "must be a Merkle root: 64 hex characters", description: "a root, as in a run proof or the explorer" }) }),
      detail: { summary: "A Merkle root of receipts: its memo, ordered leaf hashes (receipt ids only where shared) and all its anchors; 404 for an unknown root", tags },
    });
}
