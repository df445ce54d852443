/**
 * A real local EVM chain for the deposit and x402 tests: anvil (npm @foundry-rs/anvil), run as
 * its own process on 127.0.0.1 with a port it picks itself (--port 0, read back from its
 * "Listening on" line, so two test files never race for one), chain id 31337, automine (each
 * transaction is mined into its own block at once). TestUSDT is deployed from the committed
 * bytecode with viem. Blocks are mined on demand (anvil_mine), never waited for.
 *
 * Test files stop it in afterAll (by its PID, waiting for the exit); onCleanup is the safety net.
 */
import { join } from "node:path";
import { type Address, createTestClient, createWalletClient, type Hash, type Hex, http, publicActions } from "viem";
import { anvil } from "viem/chains";
import abi from "./erc20/TestUSDT.abi.json" with { type: "json" };
import { onCleanup } from "./cleanup.ts";

export const DEVNET_CHAIN_ID = 31337;
export const TEST_USDT_ABI = abi;
const BYTECODE = (await Bun.file(join(import.meta.dir, "erc20/TestUSDT.bin")).text()).trim() as Hex;
const START_TIMEOUT_MS = 15_000;

function anvilBinary(): string {
  const arch = process.arch === "arm64" ? "arm64" : "amd64";
  return join(import.meta.dir, "../../node_modules/@foundry-rs", `anvil-linux-${arch}`, "bin/anvil");
}

export interface Devnet {
  url: string;
  pid: number;
  /** Unlocked dev accounts (anvil signs for them): [0] deploys, the rest are wallets for tests. */
  accounts: Address[];
  client: ReturnType<typeof makeClient>;
  deployToken(): Promise<Address>;
  mint(token: Address, to: Address, amount: bigint): Promise<Hash>;
  /** An ERC-20 transfer; with `gas` set no estimate is made, so a transfer that reverts is still sent (and mined with status 0). */
  transfer(token: Address, from: Address, to: Address, amount: bigint, opts?: { gas?: bigint }): Promise<Hash>;
  balanceOf(token: Address, who: Address): Promise<bigint>;
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<bigint>;
  /** SIGTERM by PID, then waits for the exit (so no zombie is left behind). */
  stop(): Promise<void>;
}

function makeClient(url: string) {
  return createTestClient({ chain: anvil, mode: "anvil", cacheTime: 0, pollingInterval: 10, transport: http(url, { retryCount: 0 }) })
    .extend(publicActions);
}

/** Reads the child's stdout until its "Listening on host:port" line, then keeps draining it (a full pipe would stall anvil). */
async function listeningUrl(proc: Bun.Subprocess<"ignore", "pipe", "pipe">): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`anvil did not start within ${START_TIMEOUT_MS} ms; output:\n${seen.slice(-2000)}`);
    const chunk = await Promise.race([reader.read(), Bun.sleep(left).then(() => null)]);
    if (chunk === null) continue;
    if (chunk.done) throw new Error(`anvil exited before listening; output:\n${seen.slice(-2000)}`);
    seen += decoder.decode(chunk.value, { stream: true });
    const m = /Listening on (127\.0\.0\.1:\d+)/.exec(seen);
    if (m) {
      void (async () => {
        while (!(await reader.read()).done) {
          // discard: the log of every RPC call
        }
      })().catch(() => {});
      return `http://${m[1]}`;
    }
  }
}

export async function startDevnet(): Promise<Devnet> {
  const proc = Bun.spawn([anvilBinary(), "--host", "127.0.0.1", "--port", "0", "--chain-id", String(DEVNET_CHAIN_ID), "--accounts", "10"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  // The safety net for a file that never reached its own stop(); test files call stop() in afterAll.
  onCleanup(() => {
    if (proc.exitCode === null && proc.signalCode === null) process.kill(proc.pid, "SIGTERM");
  });
  // Keep the last of stderr for a failure message, and keep the pipe from filling.
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderr = (stderr + new TextDecoder().decode(chunk)).slice(-4000);
  })().catch(() => {});
  let url: string;
  try {
    url = await listeningUrl(proc);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nstderr:\n${stderr}`);
  }
  const client = makeClient(url);
  // Listening is not quite answering: wait (bounded) for the first JSON-RPC reply.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await client.getChainId()) === DEVNET_CHAIN_ID) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error("anvil did not answer eth_chainId in time");
    await Bun.sleep(25);
  }
  const accounts = await createWalletClient({ chain: anvil, transport: http(url, { retryCount: 0 }) }).getAddresses();
  const wallet = (account: Address) => createWalletClient({ account, chain: anvil, transport: http(url, { retryCount: 0 }) });
  // Automine mines each transaction as it arrives, but eth_sendTransaction may answer a moment
  // before the block is sealed: wait for the receipt (polling every 10 ms, bounded).
  const mined = (hash: Hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 10, timeout: 10_000 });

  return {
    url,
    pid: proc.pid,
    accounts,
    client,
    async deployToken() {
      const hash = await wallet(accounts[0]!).deployContract({ abi, bytecode: BYTECODE });
      const receipt = await mined(hash);
      if (!receipt.contractAddress) throw new Error("TestUSDT deployment produced no contract");
      return receipt.contractAddress;
    },
    async mint(token, to, amount) {
      const hash = await wallet(accounts[0]!).writeContract({ address: token, abi, functionName: "mint", args: [to, amount] });
      await mined(hash);
      return hash;
    },
    async transfer(token, from, to, amount, opts = {}) {
      const hash = await wallet(from).writeContract({ address: token, abi, functionName: "transfer", args: [to, amount], ...(opts.gas ? { gas: opts.gas } : {}) });
      await mined(hash);
      return hash;
    },
    async balanceOf(token, who) {
      return (await client.readContract({ address: token, abi, functionName: "balanceOf", args: [who] })) as bigint;
    },
    async mine(blocks = 1) {
      await client.mine({ blocks });
    },
    blockNumber: () => client.getBlockNumber(),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) process.kill(proc.pid, "SIGTERM");
      await proc.exited;
    },
  };
}
