/**
 * svc keys mint|list|revoke: operators minting and revoking API keys for an account.
 * svc keys rotate-signer: a new receipt signer key (the old address stays on record).
 */
import { formatUsd, parseUsd } from "../../core/money.ts";
import { getAccount } from "../accounts/index.ts";
import { parseScopes } from "./scopes.ts";
import { listKeys, mintKey, revokeKey } from "./service.ts";
import { getKeyRow } from "./store.ts";
import { rotateSigner } from "../receipts/index.ts";
import { accountOption, type Command, CommandFailed, type Group, locationOptions, requireAccount, str, UsageError } from "../../cli/command.ts";

const json = { type: "boolean", description: "print JSON" } as const;

const mint: Command = {
  name: "keys mint",
  summary: "Mint an API key for an account (the secret is printed once)",
  options: {
    ...locationOptions,
    json,
    account: { type: "string", value: "ACCOUNT_ID", description: "the account the key spends for (required)" },
    name: { type: "string", value: "TEXT", description: "a label" },
    scopes: { type: "string", value: "LIST", description: "comma-separated scopes (docs/scopes.md); default: every scope" },
    cap: { type: "string", value: "USD", description: "monthly spend cap in dollars, e.g. 25 or 0.50" },
  },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    let cap: number | null = null;
    const capText = str(values.cap);
    if (capText !== undefined) {
      try {
        cap = parseUsd(capText);
      } catch (err) {
        throw new UsageError(`--cap: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (cap < 0) throw new UsageError("--cap must not be negative");
    }
    const scopeText = str(values.scopes);
    let scopes: string[] | undefined;
    try {
      scopes = scopeText === undefined ? undefined : parseScopes(scopeText.split(",").filter(Boolean), "--scopes");
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const minted = mintKey(ctx, { accountId, name: str(values.name) ?? null, scopes: parseScopes(scopes), monthlyCap: cap });
      ctx.audit.record("cli", "key.mint", minted.view.id, { account_id: accountId });
      if (values.json) return void console.log(JSON.stringify({ ...minted.view, key: minted.key }, null, 2));
      console.log(`minted ${minted.view.id} for ${accountId} (scopes: ${minted.view.scopes.join(", ")}${cap !== null ? `, monthly cap ${formatUsd(cap)}` : ""})`);
      console.log(`key (shown once; only its sha256 is stored): ${minted.key}`);
    });
  },
};

const list: Command = {
  name: "keys list",
  summary: "An account's keys, with this month's spend",
  options: { ...locationOptions, json, account: accountOption, all: { type: "boolean", description: "include revoked keys" } },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const keys = listKeys(ctx, accountId, Boolean(values.all));
      if (values.json) return void console.log(JSON.stringify(keys, null, 2));
      if (!keys.length) return void console.log("no keys");
      for (const k of keys) {
        const cap = k.monthly_cap_micro_usd === null ? "no cap" : `cap ${formatUsd(k.monthly_cap_micro_usd)}`;
        console.log(`${k.id}  ${k.prefix}…  ${k.status.padEnd(7)}  ${k.kind.padEnd(9)}  spent ${formatUsd(k.spent_this_month_micro_usd)} (${cap})  ${k.name ?? ""}`);
      }
    });
  },
};

const revoke: Command = {
  name: "keys revoke",
  summary: "Revoke a key and every key delegated below it",
  args: "KEY_ID",
  positionals: { min: 1, max: 1 },
  options: locationOptions,
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const row = getKeyRow(ctx, positionals[0]!);
      if (!row) throw new CommandFailed(`no API key ${positionals[0]}`);
      const revoked = revokeKey(ctx, row.account_id, row.id, "revoked by the operator");
      ctx.audit.record("cli", "key.revoke", row.id, { revoked });
      console.log(revoked.length ? `revoked ${revoked.join(", ")}` : `${row.id} was already revoked`);
    }),
};

const rotateSignerCommand: Command = {
  name: "keys rotate-signer",
  summary: "Replace the receipt signer key; receipts the old key signed stay verifiable",
  options: { ...locationOptions, json },
  details: `
Makes a new secp256k1 key, seals it into <data dir>/signer.key in place of the old one, and
records it as the current signer. The old address keeps its validity window in
GET /v1/receipts/pubkey, and receipts it signed before now still verify; its key is gone from
disk, so svc never signs with it again. A running svc serve switches to the new key at its
next signature (no restart). Back up the new signer.key (docs/backup.md).`,
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const rotation = rotateSigner(ctx);
      if (values.json) return void console.log(JSON.stringify(rotation, null, 2));
      console.log(`new receipt signer ${rotation.signer.address} (current from ${rotation.signer.valid_from})`);
      if (rotation.retired) console.log(`retired ${rotation.retired.address} (valid ${rotation.retired.valid_from} to ${rotation.retired.valid_until}); receipts it signed before then still verify`);
      console.log("a running svc serve signs with the new key from its next receipt on; no restart needed");
      console.log(`back up the new ${ctx.paths.signerKey} (docs/backup.md); the old key is no longer on disk`);
    }),
};

export const keysGroup: Group = { name: "keys", summary: "API keys: mint, list, revoke; the receipt signer: rotate-signer", commands: [mint, list, revoke, rotateSignerCommand] };
