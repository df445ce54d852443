/**
 * Organizations, members, roles and invites (/v1/orgs/*); the role checks other areas call.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { orgRoutes } from "./routes.ts";

export const orgsModule = defineModule({ name: "orgs", routes: (ctx) => [orgRoutes(ctx)] });
