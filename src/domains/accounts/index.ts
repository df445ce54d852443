/**
 * Accounts: the account records (svc accounts …); sign-in lives in auth, credit in billing.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {
  accountCounts,
  type AccountPageQuery,
  accountsPage,
  type AccountView,
  createAccount,
  getAccount,
  isSuspended,
  listAccounts,
  setSuspended,
  type SuspendInput,
} from "./service.ts";
