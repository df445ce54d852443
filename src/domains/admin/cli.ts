/**
 * svc admin …: operator actions on the local database, calling the same service functions as
 * the /v1/admin routes (recorded in the audit log as actor "cli").
 */
import { readFileSync } from "node:fs";
import { sha256Hex } from "../../core/secrets.ts";
import { formatUsd, parseMicroUsd } from "../../core/money.ts";
import { setSuspended } from "../accounts/index.ts";
import { addDenied, listDenied, removeDenied } from "./denylist.ts";
import { adminMetrics } from "./metrics.ts";
import { adjustCredit } from "../billing/index.ts";
import { accountOption, type Command, type Group, locationOptions, str, UsageError } from "../../cli/command.ts";

const SHA256 = /^[0-9a-fA-F]{64}$/;
const json = { type: "boolean", description: "print JSON" } as const;

const suspend: Command = {
  name: "admin suspend",
  summary: "Suspend an account: its keys and sessions are refused",
  args: "ACCOUNT_ID",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, reason: { type: "string", value: "TEXT", description: "why (kept in the audit log)" } },
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const a = setSuspended(ctx, { accountId: positionals[0]!, suspended: true, reason: str(values.reason) ?? null, actor: "cli" });
      console.log(`suspended ${a.id} since ${a.suspended_at}${a.suspended_reason ? ` (${a.suspended_reason})` : ""}`);
    }),
};

const unsuspend: Command = {
  name: "admin unsuspend",
  summary: "Lift an account's suspension",
  args: "ACCOUNT_ID",
  positionals: { min: 1, max: 1 },
  options: locationOptions,
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const a = setSuspended(ctx, { accountId: positionals[0]!, suspended: false, actor: "cli" });
      console.log(`${a.id} is active`);
    }),
};

const denyAdd: Command = {
  name: "admin denylist add",
  summary: "Refuse every request body with this sha256 (or the sha256 of --file)",
  args: "[SHA256]",
  positionals: { min: 0, max: 1 },
  options: {
    ...locationOptions,
    file: { type: "string", value: "PATH", description: "deny the exact bytes of this file" },
    reason: { type: "string", value: "TEXT", description: "why (shown in the list)" },
  },
  run: ({ values, positionals }, host) => {
    const file = str(values.file);
    if (file && positionals[0]) throw new UsageError("give SHA256 or --file, not both");
    const sha256 = file ? sha256Hex(readFileSync(file)) : positionals[0];
    if (!sha256) throw new UsageError("missing SHA256 (or --file PATH)");
    if (!SHA256.test(sha256)) throw new UsageError("SHA256 must be 64 hex characters");
    return host.withContext(values, (ctx) => {
      const { entry, created } = addDenied(ctx, { sha256, reason: str(values.reason) ?? null, actor: "cli" });
      console.log(`${created ? "denied" : "already denied"} ${entry.sha256}${entry.reason ? ` (${entry.reason})` : ""}`);
    });
  },
};

const denyRemove: Command = {
  name: "admin denylist remove",
  summary: "Stop refusing a payload digest",
  args: "SHA256",
  positionals: { min: 1, max: 1 },
  options: locationOptions,
  run: ({ values, positionals }, host) => {
    if (!SHA256.test(positionals[0]!)) throw new UsageError("SHA256 must be 64 hex characters");
    return host.withContext(values, (ctx) => {
      removeDenied(ctx, { sha256: positionals[0]!, actor: "cli" });
      console.log(`removed ${positionals[0]!.toLowerCase()}`);
    });
  },
};

const denyList: Command = {
  name: "admin denylist list",
  summary: "List refused payload digests",
  options: { ...locationOptions, json },
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const rows = listDenied(ctx);
      if (values.json) return void console.log(JSON.stringify(rows, null, 2));
      if (!rows.length) return void console.log("the denylist is empty");
      for (const r of rows) console.log(`${r.sha256}  hits=${r.hits}  added=${r.created_at}${r.reason ? `  ${r.reason}` : ""}`);
    }),
};

const metrics: Command = {
  name: "admin metrics",
  summary: "Paying accounts, spend by window, events by kind",
  options: { ...locationOptions, json },
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const m = adminMetrics(ctx);
      if (values.json) return void console.log(JSON.stringify(m, null, 2));
      console.log(`accounts: ${m.accounts.total} (${m.accounts.paying} paying, ${m.accounts.suspended} suspended)`);
      console.log(`billing enforced: ${m.billing_enforced ? "yes" : "no"}`);
      for (const w of ["24h", "7d", "30d", "all_time"] as const) {
        const adj = m.adjustments_micro_usd[w];
        console.log(`${w.padEnd(8)} spend ${formatUsd(m.spend_micro_usd[w]).padStart(14)}   credited ${formatUsd(m.credited_micro_usd[w]).padStart(14)}   operator +${formatUsd(adj.granted)} -${formatUsd(adj.taken)}`);
      }
      const kinds = Object.entries(m.events_by_kind.all_time);
      console.log(kinds.length ? "events (all time / 24h):" : "events: none yet");
      for (const [kind, n] of kinds) console.log(`  ${kind}: ${n} / ${m.events_by_kind["24h"][kind] ?? 0}`);
    }),
};

function creditCommand(direction: "grant" | "debit"): Command {
  return {
    name: `admin credit ${direction}`,
    summary: direction === "grant" ? "Add credit to an account (a ledger adjustment)" : "Take credit from an account (a ledger adjustment; never below what it can spend)",
    options: {
      ...locationOptions,
      json,
      account: accountOption,
      "micro-usd": { type: "string", value: "N", description: "the amount in micro-USD, a whole number > 0 (1000000 = $1)" },
      reason: { type: "string", value: "TEXT", description: "why (kept on the ledger entry and in the audit log; required)" },
    },
    run: ({ values }, host) => {
      const accountId = str(values.account);
      const amountText = str(values["micro-usd"]);
      const reason = str(values.reason);
      if (!accountId) throw new UsageError("--account ACCOUNT_ID is required");
      if (!amountText) throw new UsageError("--micro-usd must be a whole number greater than 0");
      let amount: number;
      try {
        amount = parseMicroUsd(amountText, 1);
      } catch (err) {
        throw new UsageError(`--micro-usd: ${(err as Error).message}`);
      }
      if (!reason) throw new UsageError("--reason is required: an adjustment without a reason cannot be audited");
      return host.withContext(values, (ctx) => {
        const entry = adjustCredit(ctx, "cli", { accountId, direction, amount, reason });
        if (values.json) return void console.log(JSON.stringify(entry, null, 2));
        console.log(`${direction === "grant" ? "granted" : "debited"} ${formatUsd(amount)} ${direction === "grant" ? "to" : "from"} ${accountId}: balance now ${formatUsd(entry.balance_after_micro_usd)} (entry ${entry.id})`);
      });
    },
  };
}

export const adminGroup: Group = {
  name: "admin",
  summary: "Operator actions: suspend accounts, deny payloads, adjust credit, business metrics",
  commands: [
    suspend,
    unsuspend,
    { name: "admin denylist", summary: "Manage refused payload digests", commands: [denyAdd, denyRemove, denyList] },
    { name: "admin credit", summary: "Grant or take credit (ledger adjustments)", commands: [creditCommand("grant"), creditCommand("debit")] },
    metrics,
  ],
};
