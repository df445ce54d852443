/** Organizations, members, roles and invites (/v1/orgs/*); the role checks other areas call. */
import { defineModule } from "../../module.ts";
import { orgRoutes } from "./routes.ts";

export const orgsModule = defineModule({ name: "orgs", routes: (ctx) => [orgRoutes(ctx)] });

export { orgRole, requireActingRole, requireOrgRole, type Role } from "./roles.ts";
export { listOrgs, type OrgView } from "./service.ts";
