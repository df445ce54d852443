/**
 * svc chains add|list|remove: the EVM chains USDT deposits and x402 payments are accepted on,
 * kept in svc.toml (chains[]). svc serve reads its configuration once at start, so each change
 * says whether a running server needs a restart to pick it up.
 *
 * RPC URLs often carry a provider's API key, so they are never printed back in full: the
 * commands show scheme and host only.
 */
import { existsSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { type Config, paths, writeConfigFile } from "../../config.ts";
import { ChainSchema } from "./config.ts";
import { ChainClient, ChainRpcError, redactRpcUrl } from "../../core/chain.ts";
import { pendingDepositCount } from "./deposits.ts";
import { runningServer } from "../backup/index.ts";
import { parseEvmAddress } from "./transfer-check.ts";
import { type Command, CommandFailed, type CommandHost, type Group, locationOptions, type Parsed, str, UsageError } from "../../cli/command.ts";

type Chain = Config["chains"][number];

const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const HTTP_URL = /^https?:\/\/[^\s/]+/;
/** The reachability check at `add` is a courtesy: it must not hang the command. */
const CHECK_TIMEOUT_MS = 5_000;

function wholeNumber(flag: string, text: string | undefined, min: number, max: number): number {
  if (text === undefined || !/^\d+$/.test(text)) throw new UsageError(`--${flag} must be a whole number between ${min} and ${max}`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`--${flag} must be a whole number between ${min} and ${max}`);
  return n;
}

function restartNotice(config: Config): string {
  const pid = runningServer(config);
  return pid ? `svc serve (pid ${pid}) is running: restart it to apply (systemctl restart svc)` : "applies the next time svc serve starts";
}

const sameChain = (a: Chain, b: Chain) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

function writeChains(config: Config, chains: Chain[]): void {
  writeConfigFile(config.config_path, { chains });
}

const add: Command = {
  name: "chains add",
  summary: "Accept USDT deposits on an EVM chain (or change one with --replace)",
  args: "NAME",
  positionals: { min: 1, max: 1 },
  options: {
    ...locationOptions,
    rpc: { type: "string", value: "URL", description: "the chain's JSON-RPC endpoint, http(s):// (required; kept in svc.toml, shown as scheme://host only)" },
    "chain-id": { type: "string", value: "N", description: "the chain's id, e.g. 1 (Ethereum), 8453 (Base) (required)" },
    usdt: { type: "string", value: "ADDRESS", description: "the USDT contract on this chain (required)" },
    confirmations: { type: "string", value: "K", description: "blocks a transfer needs before it is credited (required)" },
    decimals: { type: "string", value: "N", description: "the token's decimals (default 6, as USDT)" },
    explorer: { type: "string", value: "URL", description: "block explorer base URL, for links to transactions" },
    replace: { type: "boolean", description: "change a chain that already exists" },
    "skip-check": { type: "boolean", description: "do not ask the RPC node for its chain id" },
  },
  details: `NAME is what clients send as "chain" (lowercase letters, digits, dashes).
Unless --skip-check, the RPC node is asked for its chain id: a different one is refused; a node
that does not answer is reported and the chain is added anyway.
Example: svc chains add base --rpc https://mainnet.base.org --chain-id 8453 --usdt 0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2 --confirmations 10`,
  async run({ values, positionals }, host) {
    const name = positionals[0]!;
    if (!NAME.test(name)) throw new UsageError(`NAME must be 1-32 lowercase letters, digits or dashes (starting with a letter or digit), got "${name}"`);
    const rpc = str(values.rpc);
    if (!rpc) throw new UsageError("--rpc URL is required");
    if (!HTTP_URL.test(rpc)) throw new UsageError("--rpc must be an http:// or https:// URL");
    const usdtText = str(values.usdt);
    if (!usdtText) throw new UsageError("--usdt ADDRESS is required");
    let usdt: string;
    try {
      usdt = parseEvmAddress(usdtText);
    } catch (err) {
      throw new UsageError(`--usdt: ${(err as Error).message}`);
    }
    const explorer = str(values.explorer);
    if (explorer !== undefined && !HTTP_URL.test(explorer)) throw new UsageError("--explorer must be an http:// or https:// URL");
    const chain: Chain = {
      name,
      chain_id: wholeNumber("chain-id", str(values["chain-id"]), 1, Number.MAX_SAFE_INTEGER),
      rpc_url: rpc,
      usdt,
      decimals: values.decimals === undefined ? 6 : wholeNumber("decimals", str(values.decimals), 0, 36),
      confirmations: wholeNumber("confirmations", str(values.confirmations), 1, 10_000),
      ...(explorer ? { explorer_url: explorer.replace(/\/+$/, "") } : {}),
    };
    const invalid = [...Value.Errors(ChainSchema, chain)][0];
    if (invalid) throw new UsageError(`${invalid.path.slice(1) || "chain"}: ${invalid.message}`);

    const config = host.configFrom(values);
    const existing = config.chains.find((c) => c.name === name);
    if (existing && sameChain(existing, chain)) {
      console.log(`chain ${name} is already configured with these settings; no change`);
      return;
    }
    if (existing && !values.replace) throw new CommandFailed(`chain ${name} already exists with other settings; pass --replace to change it, or remove it first`);

    if (!values["skip-check"]) {
      try {
        const nodeChainId = await new ChainClient(rpc, { timeoutMs: CHECK_TIMEOUT_MS, retries: 0 }).chainId();
        if (nodeChainId !== chain.chain_id) {
          throw new CommandFailed(`the RPC node at ${redactRpcUrl(rpc)} is on chain id ${nodeChainId}, not ${chain.chain_id}: check --chain-id and --rpc (nothing was changed)`);
        }
        console.log(`the RPC node at ${redactRpcUrl(rpc)} answers: chain id ${nodeChainId}`);
      } catch (err) {
        if (!(err instanceof ChainRpcError)) throw err;
        console.log(`warning: the RPC node at ${redactRpcUrl(rpc)} could not be checked (${err.message}); adding the chain anyway, but deposits on ${name} fail until it answers`);
      }
    }

    writeChains(config, existing ? config.chains.map((c) => (c.name === name ? chain : c)) : [...config.chains, chain]);
    const after = host.configFrom(values); // proves the written file is valid
    console.log(`${existing ? "changed" : "added"} chain ${name} (chain id ${chain.chain_id}, USDT ${usdt}, ${chain.decimals} decimals, ${chain.confirmations} confirmations)`);
    if (!after.billing.treasury) console.log("deposits stay off until a treasury is set: svc setup --treasury ADDRESS");
    console.log(restartNotice(after));
  },
};

const list: Command = {
  name: "chains list",
  summary: "The chains deposits are accepted on, and the treasury",
  options: { ...locationOptions, json: { type: "boolean", description: "print JSON (RPC URLs shown as scheme and host only)" } },
  run({ values }, host) {
    const config = host.configFrom(values);
    const chains = config.chains.map((c) => ({ ...c, rpc_url: redactRpcUrl(c.rpc_url) }));
    if (values.json) return void console.log(JSON.stringify({ treasury: config.billing.treasury || null, chains }, null, 2));
    console.log(`treasury: ${config.billing.treasury || "(not set: deposits are off; svc setup --treasury ADDRESS)"}`);
    if (!chains.length) return void console.log("no chains (svc chains add NAME --rpc URL --chain-id N --usdt ADDRESS --confirmations K)");
    for (const c of chains) {
      console.log(`${c.name}  chain id ${c.chain_id}  USDT ${c.usdt} (${c.decimals} decimals)  ${c.confirmations} confirmations  rpc ${c.rpc_url}${c.explorer_url ? `  explorer ${c.explorer_url}` : ""}`);
    }
  },
};

/** Pending deposits on a chain (0 where svc has not been set up: no database, no deposits). */
async function pendingDepositsOn(values: Parsed["values"], host: CommandHost, config: Config, chain: Chain): Promise<number> {
  if (!existsSync(paths(config).masterKey)) return 0;
  return host.withContext(values, (ctx) => pendingDepositCount(ctx, chain.chain_id));
}

const remove: Command = {
  name: "chains remove",
  summary: "Stop accepting deposits on a chain (credited deposits stay credited)",
  args: "NAME",
  positionals: { min: 1, max: 1 },
  options: locationOptions,
  async run({ values, positionals }, host) {
    const name = positionals[0]!;
    const config = host.configFrom(values);
    const chain = config.chains.find((c) => c.name === name);
    if (!chain) {
      const known = config.chains.map((c) => c.name);
      throw new CommandFailed(`no chain ${name} (configured: ${known.length ? known.join(", ") : "none"})`);
    }
    writeChains(config, config.chains.filter((c) => c.name !== name));
    const after = host.configFrom(values);
    console.log(`removed chain ${name}`);
    const pending = await pendingDepositsOn(values, host, config, chain);
    if (pending) console.log(`note: ${pending} pending deposit(s) on ${name} will not be confirmed unless the chain is added back`);
    console.log(restartNotice(after));
  },
};

export const chainsGroup: Group = { name: "chains", summary: "EVM chains for USDT deposits: add, list, remove", commands: [add, list, remove] };
