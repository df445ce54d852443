/**
 * The web console (/console): its module is in module.ts. What other code may use: the
 * operator cookie the admin guard accepts in place of the admin token.
 */
export { OPERATOR_COOKIE, operatorCookieAdmits } from "./operator.ts";
