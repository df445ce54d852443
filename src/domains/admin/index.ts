/**
 * The operator's admin group (/v1/admin/*, mounted only with an admin token) and `svc admin …`.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { isDenied } from "./denylist.ts";
