/**
 * GET /v1/anchors/:root (public): a batch root with its ordered leaves and all its anchors.
 * Rules and the published fields: service.ts, roots.ts, docs/receipts.md.
 */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { anchorDocument } from "./service.ts";

const tags = ["anchors"];

export function anchorRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/anchors" })
    .use(guards.public(ctx))
    .get("/:root", ({ params }) => anchorDocument(ctx, params.root), {
      params: M.RootParams,
      response: { 200: M.AnchorDocument },
      detail: { summary: "A Merkle root of receipts: its memo, ordered leaf hashes (receipt ids only where shared) and all its anchors; 404 for an unknown root", tags },
    });
}
