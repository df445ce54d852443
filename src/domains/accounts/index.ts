/** Accounts: the account records (svc accounts …); sign-in lives in auth, credit in billing. */
import { defineModule } from "../../module.ts";
import { accountsGroup } from "./cli.ts";

export const accountsModule = defineModule({ name: "accounts", cli: [accountsGroup] });

export { type AccountView, createAccount, getAccount, isSuspended, listAccounts, setSuspended, type SuspendInput } from "./service.ts";
