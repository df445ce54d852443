/**
 * The operator's admin group (/v1/admin/*, mounted only with an admin token) and `svc admin …`.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { adminGroup } from "./cli.ts";
import { adminConfig } from "./config.ts";
import { adminRoutes } from "./routes.ts";

export const adminModule = defineModule({
  name: "admin",
  config: adminConfig,
  routes: (ctx) => (ctx.config.admin.token_sha256 ? [adminRoutes(ctx)] : []),
  cli: [adminGroup],
});
