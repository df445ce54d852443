/**
 * svc anchors evm-key: create the sealed anchor wallet (once) and print the address to fund.
 * svc anchors status: anchors by backend and status, and why open evm anchors are stuck.
 * Reference: docs/receipts.md (Runs, proofs and anchors).
 */
import { ChainClient, ChainRpcError, redactRpcUrl } from "../../core/chain.ts";
import { anchorChain } from "./evm.ts";
import { createAnchorWallet, loadAnchorWallet } from "./wallet.ts";
import { anchorTally, stuckEvmAnchors } from "./stats.ts";
import { type Command, type Group, locationOptions } from "../../cli/command.ts";

/** The balance is a courtesy: a silent node must not hang the command. */
const BALANCE_TIMEOUT_MS = 5_000;

const formatEth = (wei: bigint) => {
  const whole = wei / 10n ** 18n;
  const frac = (wei % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
};

const evmKey: Command = {
  name: "anchors evm-key",
  summary: "Create the anchor wallet (a sealed key, once) and print its address to fund",
  options: locationOptions,
  details: `The wallet pays for evm anchor transactions (anchors.evm.chain in svc.toml). It is its
own key, not the receipt signer, sealed with the master key in <data dir>/anchor.key (0600).
Running the command again prints the same address. Fund it with the chain's native coin.`,
  run: ({ values }, host) =>
    host.withContext(values, async (ctx) => {
      const { address, created } = createAnchorWallet(ctx.config, ctx.sealer);
      if (created) ctx.audit.record("cli", "anchors.evm_key", address, {});
      console.log(`${created ? "created" : "kept"} anchor wallet ${address}`);
      const chain = anchorChain(ctx);
      if (!chain) return void console.log("evm anchoring is off: set anchors.evm.chain in svc.toml to a chain from `svc chains list`, then restart svc");
      try {
        const wei = await new ChainClient(chain.rpc_url, { timeoutMs: BALANCE_TIMEOUT_MS, retries: 0 }).balance(address);
        console.log(`balance on ${chain.name}: ${formatEth(wei)} (native coin)${wei === 0n ? ": fund this address so anchors can be sent" : ""}`);
      } catch (err) {
        if (!(err instanceof ChainRpcError)) throw err;
        console.log(`balance on ${chain.name}: unknown (the node at ${redactRpcUrl(chain.rpc_url)} did not answer: ${err.message})`);
      }
    }),
};

const status: Command = {
  name: "anchors status",
  summary: "Anchors by backend and status; why open evm anchors have not gone through",
  options: locationOptions,
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const rows = anchorTally(ctx);
      if (!rows.length) console.log("no anchors yet");
      for (const r of rows) console.log(`${r.backend}  ${r.status}  ${r.n}`);
      const chain = anchorChain(ctx);
      console.log(chain ? `evm anchoring on ${chain.name} (chain id ${chain.chain_id})` : "evm anchoring is off (anchors.evm.chain)");
      const wallet = loadAnchorWallet(ctx.config, ctx.sealer);
      if (chain) console.log(wallet ? `anchor wallet ${wallet.address}` : "no anchor wallet: run `svc anchors evm-key`");
      for (const s of stuckEvmAnchors(ctx)) console.log(`${s.n} ${s.status}: ${s.last_error}`);
    }),
};

export const anchorsGroup: Group = { name: "anchors", summary: "Anchors of receipt roots: the evm anchor wallet, status", commands: [evmKey, status] };
