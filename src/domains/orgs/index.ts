/**
 * Organizations, members, roles and invites (/v1/orgs/*); the role checks other areas call.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { orgRole, requireActingRole, requireOrgRole, type Role } from "./roles.ts";
export { listOrgs, type OrgView } from "./service.ts";
