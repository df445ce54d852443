/** GET /v1/explorer (public): aggregate proof counts, recent shared receipts, recent anchors. Rules: service.ts. */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { explorerPage } from "./service.ts";

export function explorerRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/explorer" })
    .use(guards.public(ctx))
    .get("", () => explorerPage(ctx), {
      response: { 200: M.ExplorerPage },
      detail: { summary: "Aggregate proof counts, recent shared receipts and recent anchors (passports: not yet)", tags: ["explorer"] },
    });
}
