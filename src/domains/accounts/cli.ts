/** svc accounts list|show|create: operators looking at and creating accounts. */
import { formatUsd } from "../../core/money.ts";
import { getAccount, listAccounts } from "./service.ts";
import { listSessions } from "../auth/index.ts";
import { accountForWallet } from "../auth/index.ts";
import { findAccountByWallet, listWallets, normalizeAddress } from "../auth/index.ts";
import { listPasskeys } from "../auth/index.ts";
import { listOrgs } from "../orgs/index.ts";
import type { Context } from "../../context.ts";
import { type Command, CommandFailed, type Group, locationOptions, str, UsageError } from "../../cli/command.ts";

const json = { type: "boolean", description: "print JSON" } as const;

function details(ctx: Context, id: string) {
  const account = getAccount(ctx, id);
  return {
    ...account,
    wallets: listWallets(ctx, id).map((w) => w.address),
    live_sessions: listSessions(ctx, id, null).length,
    passkeys: listPasskeys(ctx, id).length,
    orgs: listOrgs(ctx, id).map((o) => ({ id: o.id, name: o.name, role: o.role })),
  };
}

const list: Command = {
  name: "accounts list",
  summary: "Accounts, newest first",
  options: { ...locationOptions, json, limit: { type: "string", value: "N", description: "at most N accounts (default 100)" } },
  run: ({ values }, host) => {
    const limit = Number(str(values.limit) ?? 100);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive whole number");
    return host.withContext(values, (ctx) => {
      const rows = listAccounts(ctx, limit).map((a) => details(ctx, a.id));
      if (values.json) return void console.log(JSON.stringify(rows, null, 2));
      if (!rows.length) return void console.log("no accounts yet");
      for (const a of rows) {
        console.log(`${a.id}  ${a.created_at}  ${formatUsd(a.balance_micro_usd).padStart(12)}  ${a.suspended ? "SUSPENDED  " : ""}${a.wallets.join(", ")}`);
      }
    });
  },
};

const show: Command = {
  name: "accounts show",
  summary: "One account: wallets, sessions, credit, suspension",
  args: "ACCOUNT_ID|WALLET",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, json },
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const ref = positionals[0]!;
      const id = ref.startsWith("0x") ? findAccountByWallet(ctx, normalizeAddress(ref, "WALLET")) : ref;
      if (!id) throw new CommandFailed(`no account has wallet ${ref}`);
      const a = details(ctx, id);
      if (values.json) return void console.log(JSON.stringify(a, null, 2));
      console.log(`account:   ${a.id} (created ${a.created_at})`);
      console.log(`status:    ${a.suspended ? `SUSPENDED since ${a.suspended_at}${a.suspended_reason ? ` (${a.suspended_reason})` : ""}` : "active"}`);
      console.log(`credit:    ${formatUsd(a.balance_micro_usd)} balance, ${formatUsd(a.held_micro_usd)} held, ${formatUsd(a.spendable_micro_usd)} spendable`);
      console.log(`wallets:   ${a.wallets.join(", ") || "none"}`);
      console.log(`sessions:  ${a.live_sessions} live; passkeys: ${a.passkeys}`);
      console.log(`orgs:      ${a.orgs.map((o) => `${o.name} (${o.id}, ${o.role})`).join(", ") || "none"}`);
    }),
};

const create: Command = {
  name: "accounts create",
  summary: "Create the account of a wallet (what its first sign-in would do)",
  options: { ...locationOptions, json, wallet: { type: "string", value: "ADDRESS", description: "the wallet (0x…) that signs in to it" } },
  run: ({ values }, host) => {
    const wallet = str(values.wallet);
    if (!wallet) throw new UsageError("--wallet ADDRESS is required");
    if (!/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new UsageError("--wallet must be a 0x-prefixed 20-byte hex address");
    return host.withContext(values, (ctx) => {
      const { accountId, created } = accountForWallet(ctx, wallet);
      ctx.audit.record("cli", created ? "account.create" : "account.create_existing", accountId, { wallet: wallet.toLowerCase() });
      if (values.json) return void console.log(JSON.stringify({ ...details(ctx, accountId), created }, null, 2));
      console.log(created ? `created ${accountId} for ${wallet}` : `${wallet} already belongs to ${accountId}; nothing created`);
    });
  },
};

export const accountsGroup: Group = {
  name: "accounts",
  summary: "Accounts: list, show, create for a wallet",
  commands: [list, show, create],
};
