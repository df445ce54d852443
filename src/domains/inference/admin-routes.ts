/**
 * GET /v1/admin/providers: the operator's view of the inference catalogue (admin-catalog.ts).
 * Mounted only with an admin token (module.ts), like every /v1/admin group.
 */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { adminCatalog } from "./admin-catalog.ts";
import * as M from "./models.ts";

export function adminCatalogRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/admin" })
    .use(guards.admin(ctx))
    .get("/providers", () => adminCatalog(ctx), {
      response: { 200: M.AdminCatalog },
      detail: {
        summary: "Configured providers (kind, base URL host, where the key comes from, availability; never a key) and every model with its per-Mtok prices",
        tags: ["admin", "inference"],
        security: [{ admin: [] }],
      },
    });
}
