/**
 * Accounts: the account records (svc accounts …); sign-in lives in auth, credit in billing.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { accountsGroup } from "./cli.ts";

export const accountsModule = defineModule({ name: "accounts", cli: [accountsGroup] });
