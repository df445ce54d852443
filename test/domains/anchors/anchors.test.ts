/**
 * Anchors: svc's signed log of roots (every signature recovered with viem, the hash chain walked
 * from public documents), GET /v1/anchors/:root, the periodic batch job, and the evm backend
 * against a real local chain (anvil, test/support/devnet.ts): the transaction exists, its
 * calldata is the memo, and the anchor turns anchored once the confirmations are mined. The
 * scheduler is moved with runDue and the clock; blocks are mined on demand, never waited for.
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, type Hash, hexToString, keccak256, parseTransaction, recoverMessageAddress, recoverTransactionAddress, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { hexToBytes } from "@noble/hashes/utils.js";
import { dispatch } from "../../../src/cli/command.ts";
import { cliHost } from "../../../src/cli/host.ts";
import { commandTree } from "../../../cli/tree.ts";
import { type Config, writeConfigFile } from "../../../src/config.ts";
import { loadConfig } from "../../../src/open.ts";
import { EVM_TICK_MS } from "../../../src/domains/anchors/evm.ts";
import { signEip1559 } from "../../../src/domains/anchors/evm-tx.ts";
import { batchNewReceipts, registerAnchorJobs } from "../../../src/domains/anchors/service.ts";
import { createAnchorWallet } from "../../../src/domains/anchors/wallet.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness, tempDir } from "../../support/harness.ts";
import { hashChildren, hashLeaf, verifyReceiptInclusion } from "../../support/inclusion-proof.ts";

let chain: Devnet;
beforeAll(async () => {
  chain = await startDevnet();
}, 30_000);
afterAll(() => chain?.stop());

let h: Harness;
afterEach(() => h?.close());

type Hex = `0x${string}`;
const HOUR_MS = 3_600_000;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const decode = (statement: string) => JSON.parse(Buffer.from(statement, "base64url").toString("utf8")) as Record<string, any>;
const hexOf = (b: Uint8Array) => Buffer.from(b).toString("hex");

function owner() {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 1_000_000_000, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

function settle(accountId: string, runId: string | null = null) {
  const r = h.ctx.meter.reserve({ accountId, keyId: null, amount: 1_000, kind: "inference", resource: "gpt-test", resourceType: "model", runId });
  const s = h.ctx.meter.settle(r, 500, { units: { input_tokens: 1 } });
  h.clock.advance(1_000);
  return s.receipt!;
}

const proof = async (auth: Record<string, string>, runId: string) => {
  const r = await h.json("POST", `/v1/runs/${runId}/proof`, { headers: auth });
  expect(r.status).toBe(200);
  return r.body;
};

/** MTH computed here from published leaf hashes (the RFC's recursion, not src/). */
function rootFromLeafHashes(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 1) return hashes[0]!;
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return hashChildren(rootFromLeafHashes(hashes.slice(0, k)), rootFromLeafHashes(hashes.slice(k)));
}

const evmRows = () => h.ctx.db.query<Record<string, any>, []>("SELECT * FROM anchors WHERE backend = 'evm' ORDER BY created_at, id").all();

describe("the log backend", () => {
  test("every entry is signed by the receipt signer (viem recovers it) and chained to the previous one by hash, as published", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const roots: string[] = [];
    for (const run of ["a", "b", "c"]) {
      settle(accountId, run);
      settle(accountId, run);
      roots.push((await proof(auth, run)).root);
    }
    // Walk the chain from the public documents alone.
    let prev = "0".repeat(64);
    for (const [i, root] of roots.entries()) {
      const doc = (await h.json("GET", `/v1/anchors/${root}`)).body;
      const log = doc.anchors.find((a: any) => a.backend === "log");
      expect(log).toMatchObject({ status: "anchored", external_id: log.entry.id });
      const { entry } = log;
      expect<string>(await recoverMessageAddress({ message: entry.statement, signature: entry.signature as Hex })).toBe(h.ctx.signer.address);
      expect(entry.signer).toBe(h.ctx.signer.address);
      const payload = decode(entry.statement);
      expect(payload).toMatchObject({ v: 1, type: "anchor-log-entry", seq: i + 1, root, memo: `svc:v1:${root}`, prev_hash: prev });
      expect(entry.hash).toBe(sha256(entry.statement));
      expect(entry.prev_hash).toBe(prev);
      prev = entry.hash;
    }
    // Editing an old entry breaks the link the next entry signed.
    const rows = h.ctx.db.query<{ statement: string; prev_hash: string }, []>("SELECT statement, prev_hash FROM anchor_log ORDER BY seq").all();
    const forged = Buffer.from(JSON.stringify({ ...decode(rows[0]!.statement), root: "00".repeat(32) })).toString("base64url");
    expect(sha256(forged)).not.toBe(rows[1]!.prev_hash);
    expect(sha256(rows[0]!.statement)).toBe(rows[1]!.prev_hash);
  });
});

describe("GET /v1/anchors/:root", () => {
  test("public: root, memo, ordered leaf hashes that rebuild the root, receipt ids only for shared receipts", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const minted = [settle(accountId, "pub"), settle(accountId, "pub"), settle(accountId, "pub")];
    const p = await proof(auth, "pub");
    expect((await h.json("POST", `/v1/receipts/${minted[1]!.id}/share`, { headers: auth })).status).toBe(200);

    const r = await h.json("GET", `/v1/anchors/${p.root}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ root: p.root, memo: `svc:v1:${p.root}`, tree_size: 3, merkle_alg: expect.stringContaining("RFC 6962") });
    expect(r.body.leaves).toEqual([
      { index: 0, leaf_hash: p.receipts[0].leaf_hash, receipt_id: null },
      { index: 1, leaf_hash: p.receipts[1].leaf_hash, receipt_id: minted[1]!.id },
      { index: 2, leaf_hash: p.receipts[2].leaf_hash, receipt_id: null },
    ]);
    expect(hexOf(rootFromLeafHashes(r.body.leaves.map((l: any) => hexToBytes(l.leaf_hash))))).toBe(p.root);
    expect(r.body.leaves[0].leaf_hash).toBe(hexOf(hashLeaf(new TextEncoder().encode(minted[0]!.receipt))));
    // Unshared receipts: no id, no receipt string, no account anywhere in the public document.
    const text = JSON.stringify(r.body);
    for (const m of [minted[0]!, minted[2]!]) {
      expect(text).not.toContain(m.id);
      expect(text).not.toContain(m.receipt);
    }
    expect(text).not.toContain(accountId);

    expect((await h.json("GET", `/v1/anchors/${p.root.toUpperCase()}`)).body.root).toBe(p.root);
  });

  test("an unknown root is 404; a malformed one is 400 naming the field", async () => {
    h = makeHarness();
    const unknown = await h.json("GET", `/v1/anchors/${"ab".repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe("not_found");
    const bad = await h.json("GET", "/v1/anchors/not-a-root");
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("params.root");
  });
});

describe("the periodic batch", () => {
  test("new receipts since the last batch become one anchored root, once; the next batch holds only newer ones", async () => {
    h = makeHarness();
    registerAnchorJobs(h.ctx);
    const a = owner();
    const b = owner();
    const first = [settle(a.accountId, "x"), settle(b.accountId), settle(a.accountId)];
    const batches = () => h.ctx.db.query<{ root: string; first_receipt_seq: number; last_receipt_seq: number }, []>("SELECT root, first_receipt_seq, last_receipt_seq FROM receipt_batches ORDER BY seq").all();

    await h.ctx.scheduler.runDue();
    expect(batches()).toEqual([]); // not due before its interval
    h.clock.advance(HOUR_MS);
    await h.ctx.scheduler.runDue();
    expect(batches()).toHaveLength(1);
    const [batch] = batches();
    const doc = (await h.json("GET", `/v1/anchors/${batch!.root}`)).body;
    expect(doc.tree_size).toBe(3);
    expect(doc.anchors.map((x: any) => [x.backend, x.status])).toEqual([["log", "anchored"]]);
    first.forEach((m, i) => expect(doc.leaves[i].leaf_hash).toBe(hexOf(hashLeaf(new TextEncoder().encode(m.receipt)))));

    // Running again with nothing new makes no root (by the job, and called directly).
    h.clock.advance(HOUR_MS);
    await h.ctx.scheduler.runDue();
    expect(batchNewReceipts(h.ctx)).toBeNull();
    expect(batches()).toHaveLength(1);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM anchor_log").get()!.n).toBe(1);

    const later = [settle(b.accountId, "y"), settle(a.accountId)];
    h.clock.advance(HOUR_MS);
    await h.ctx.scheduler.runDue();
    const all = batches();
    expect(all).toHaveLength(2);
    expect(all[1]!.first_receipt_seq).toBe(all[0]!.last_receipt_seq + 1);
    const second = (await h.json("GET", `/v1/anchors/${all[1]!.root}`)).body;
    expect(second.tree_size).toBe(2);
    expect(hexOf(rootFromLeafHashes(later.map((m) => hashLeaf(new TextEncoder().encode(m.receipt)))))).toBe(all[1]!.root);
  });
});

describe("configuration", () => {
  test("anchors.evm.chain must name a configured chain; the defaults anchor to the log only, hourly", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "svc.toml"), '[anchors.evm]\nchain = "nowhere"\n');
    expect(() => loadConfig({ dataDir: dir }, {})).toThrow(/anchors\.evm\.chain: "nowhere" is not a configured chain/);
    writeFileSync(join(dir, "svc.toml"), "[anchors]\nmemo_prefix = \"a:b\"\n");
    expect(() => loadConfig({ dataDir: dir }, {})).toThrow(/anchors\.memo_prefix/);
    writeFileSync(join(dir, "svc.toml"), "");
    expect(loadConfig({ dataDir: dir }, {}).anchors).toEqual({ memo_prefix: "svc", batch_interval_secs: 3600, evm: { chain: "" } });
  });
});

describe("evm-tx: the EIP-1559 signer", () => {
  test("byte-for-byte what viem signs, recoverable by viem, for small, zero and large fields", async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const to = "0x1111111111111111111111111111111111111111" as Address;
    const cases = [
      { nonce: 0n, maxPriorityFeePerGas: 0n, maxFeePerGas: 7n, gas: 21_000n, value: 0n, data: new Uint8Array() },
      { nonce: 5n, maxPriorityFeePerGas: 1_500_000_000n, maxFeePerGas: 30_000_000_000n, gas: 22_400n, value: 0n, data: new TextEncoder().encode(`svc:v1:${"ab".repeat(32)}`) },
      { nonce: 1_000_000n, maxPriorityFeePerGas: 2n ** 64n, maxFeePerGas: 2n ** 70n, gas: 10_000_000n, value: 10n ** 18n, data: new Uint8Array(300).fill(7) },
    ];
    for (const c of cases) {
      const ours = signEip1559({ chainId: DEVNET_CHAIN_ID, to, ...c }, hexToBytes(key.slice(2)));
      const theirs = await account.signTransaction({ type: "eip1559", chainId: DEVNET_CHAIN_ID, to, nonce: Number(c.nonce), maxPriorityFeePerGas: c.maxPriorityFeePerGas, maxFeePerGas: c.maxFeePerGas, gas: c.gas, value: c.value, data: toHex(c.data) });
      expect(ours.raw).toBe(theirs);
      expect(ours.hash).toBe(keccak256(theirs));
      expect(ours.from).toBe(account.address);
      expect(await recoverTransactionAddress({ serializedTransaction: ours.raw as `0x02${string}` })).toBe(account.address);
      expect(parseTransaction(ours.raw as `0x02${string}`)).toMatchObject({ type: "eip1559", chainId: DEVNET_CHAIN_ID, gas: c.gas });
    }
  });
});

describe("the evm backend against a local chain", () => {
  const TOKEN = "0x1111111111111111111111111111111111111111"; // chains[] wants a USDT contract; anchoring never uses it

  function evmConfig(c: Config, opts: { rpcUrl?: string; confirmations?: number; anchorConfirmations?: number } = {}) {
    c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: opts.rpcUrl ?? chain.url, usdt: TOKEN, decimals: 6, confirmations: opts.confirmations ?? 3, explorer_url: "https://explorer.test" }];
    c.anchors.evm = { chain: "devnet", ...(opts.anchorConfirmations ? { confirmations: opts.anchorConfirmations } : {}) };
  }

  async function fundedWallet(): Promise<Address> {
    const { address } = createAnchorWallet(h.ctx.config, h.ctx.sealer);
    await chain.client.setBalance({ address: address as Address, value: 10n ** 18n });
    return address as Address;
  }

  /** One pass of the recurring evm job (and anything else due). */
  async function tick() {
    h.clock.advance(EVM_TICK_MS);
    await h.ctx.scheduler.runDue();
  }

  test("the transaction exists, its calldata is the memo, and the anchor turns anchored after the chain's confirmations", async () => {
    h = makeHarness({ config: (c) => evmConfig(c) });
    registerAnchorJobs(h.ctx);
    const wallet = await fundedWallet();
    const { accountId, auth } = owner();
    settle(accountId, "onchain");
    settle(accountId, "onchain");
    const p = await proof(auth, "onchain");
    const pending = p.anchor.anchors.find((a: any) => a.backend === "evm");
    expect(pending).toMatchObject({ status: "pending", external_id: null, explorer_url: null, chain: "devnet", chain_id: DEVNET_CHAIN_ID, confirmed_at: null });

    await h.ctx.scheduler.runDue(); // the send queued by the request (and the first recurring pass, serialised with it)
    const [row] = evmRows();
    expect(row).toMatchObject({ status: "submitted", nonce: 0, last_error: null });
    const hash = row!.external_id as Hash;
    const tx = await chain.client.getTransaction({ hash });
    expect(tx.from.toLowerCase()).toBe(wallet.toLowerCase());
    expect(tx.to!.toLowerCase()).toBe(wallet.toLowerCase());
    expect(tx.value).toBe(0n);
    expect(tx.type).toBe("eip1559");
    expect(hexToString(tx.input)).toBe(`svc:v1:${p.root}`);
    const mined = await chain.client.getTransactionReceipt({ hash });
    expect(mined.status).toBe("success");

    // One confirmation of three, then two: still submitted.
    await tick();
    expect(evmRows()[0]).toMatchObject({ status: "submitted", block_number: Number(mined.blockNumber) });
    await chain.mine(1);
    await tick();
    expect(evmRows()[0]!.status).toBe("submitted");
    await chain.mine(1);
    await tick();
    expect(evmRows()[0]).toMatchObject({ status: "anchored", confirmed_at: h.clock.now(), raw_tx: null });

    const doc = (await h.json("GET", `/v1/anchors/${p.root}`)).body;
    const evm = doc.anchors.find((a: any) => a.backend === "evm");
    expect(evm).toMatchObject({
      status: "anchored",
      external_id: hash,
      explorer_url: `https://explorer.test/tx/${hash}`,
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      block_number: Number(mined.blockNumber),
      confirmed_at: new Date(h.clock.now()).toISOString(),
    });
    expect(evm.verify).toContain(`"svc:v1:${p.root}"`);
    // Only one transaction was ever sent for the root.
    expect(await chain.client.getTransactionCount({ address: wallet })).toBe(1);
  });

  test("several roots in one pass get consecutive nonces; anchors.evm.confirmations overrides the chain's", async () => {
    h = makeHarness({ config: (c) => evmConfig(c, { confirmations: 50, anchorConfirmations: 2 }) });
    registerAnchorJobs(h.ctx);
    const wallet = await fundedWallet();
    const { accountId, auth } = owner();
    for (const run of ["one", "two", "three"]) {
      settle(accountId, run);
      await proof(auth, run);
    }
    await h.ctx.scheduler.runDue();
    expect(evmRows().map((r) => r.nonce)).toEqual([0, 1, 2]);
    // Automine puts each in its own block: the last has 1 confirmation of the 2 required (the chain's 50 would take long).
    expect(evmRows()[2]!.status).toBe("submitted");
    await chain.mine(1);
    await tick();
    expect(evmRows().map((r) => r.status)).toEqual(["anchored", "anchored", "anchored"]);
    expect(await chain.client.getTransactionCount({ address: wallet })).toBe(3);
    for (const r of evmRows()) expect(hexToString((await chain.client.getTransaction({ hash: r.external_id })).input)).toBe(r.memo);
  });

  test("a silent node: the root waits pending with the reason, and goes out once the node answers", async () => {
    h = makeHarness({ config: (c) => evmConfig(c, { rpcUrl: "http://127.0.0.1:1/secret-provider-key" }) });
    registerAnchorJobs(h.ctx);
    await fundedWallet();
    const { accountId, auth } = owner();
    settle(accountId, "offline");
    const p = await proof(auth, "offline");
    await h.ctx.scheduler.runDue();
    expect(evmRows()[0]).toMatchObject({ status: "pending", external_id: null, last_error: expect.stringContaining("could not reach the node") });
    expect(evmRows()[0]!.last_error).not.toContain("secret-provider-key");
    await tick();
    expect(evmRows()[0]!.status).toBe("pending"); // retried, still down
    // The public document never shows the operator's error.
    expect(JSON.stringify((await h.json("GET", `/v1/anchors/${p.root}`)).body)).not.toContain("could not reach");

    h.ctx.config.chains[0]!.rpc_url = chain.url; // the node is back
    await tick();
    expect(evmRows()[0]).toMatchObject({ status: "submitted", last_error: null });
    await chain.mine(2);
    await tick();
    expect(evmRows()[0]!.status).toBe("anchored");
  });

  test("no wallet, then an unfunded one: pending with the reason; funded, it is sent", async () => {
    h = makeHarness({ config: (c) => evmConfig(c, { anchorConfirmations: 1 }) });
    registerAnchorJobs(h.ctx);
    const { accountId, auth } = owner();
    settle(accountId, "poor");
    await proof(auth, "poor");
    await h.ctx.scheduler.runDue();
    expect(evmRows()[0]).toMatchObject({ status: "pending", last_error: expect.stringContaining("svc anchors evm-key") });

    const { address } = createAnchorWallet(h.ctx.config, h.ctx.sealer);
    await tick();
    expect(evmRows()[0]).toMatchObject({ status: "pending", external_id: null, raw_tx: null, last_error: expect.stringMatching(/insufficient funds/i) });

    await chain.client.setBalance({ address: address as Address, value: 10n ** 18n });
    await tick();
    await tick();
    expect(evmRows()[0]!.status).toBe("anchored");
  });

  test("a transaction dropped from the mempool is re-broadcast unchanged (same hash, same nonce), never paid twice", async () => {
    h = makeHarness({ config: (c) => evmConfig(c, { anchorConfirmations: 1 }) });
    registerAnchorJobs(h.ctx);
    const wallet = await fundedWallet();
    const { accountId, auth } = owner();
    settle(accountId, "dropped");
    await proof(auth, "dropped");
    await chain.client.setAutomine(false);
    try {
      await h.ctx.scheduler.runDue();
      const [row] = evmRows();
      expect(row!.status).toBe("submitted");
      const hash = row!.external_id as Hash;
      await chain.client.dropTransaction({ hash });
      expect(await chain.client.getTransaction({ hash }).catch(() => null)).toBeNull();

      await tick(); // unknown to the node: the stored bytes go out again
      expect(evmRows()[0]).toMatchObject({ status: "submitted", external_id: hash });
      expect((await chain.client.getTransaction({ hash })).hash).toBe(hash);
    } finally {
      await chain.client.setAutomine(true);
    }
    await chain.mine(1);
    await tick();
    expect(evmRows()[0]!.status).toBe("anchored");
    expect(await chain.client.getTransactionCount({ address: wallet })).toBe(1);
  });

  test("svc anchors evm-key creates the wallet once and shows its balance on the anchor chain", async () => {
    h = makeHarness();
    writeConfigFile(h.ctx.config.config_path, {
      chains: [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: TOKEN, decimals: 6, confirmations: 1 }],
      anchors: { evm: { chain: "devnet" } },
    });
    const out: string[] = [];
    const log = spyOn(console, "log").mockImplementation((...args: unknown[]) => void out.push(args.join(" ")));
    try {
      expect(await dispatch(commandTree, ["anchors", "evm-key", "--data-dir", h.dir], cliHost)).toBe(0);
      const address = /created anchor wallet (0x[0-9a-fA-F]{40})/.exec(out.join("\n"))?.[1];
      expect(address).toBeDefined();
      expect(out.join("\n")).toContain("balance on devnet: 0 (native coin): fund this address");
      await chain.client.setBalance({ address: address as Address, value: 15n * 10n ** 17n });
      out.length = 0;
      expect(await dispatch(commandTree, ["anchors", "evm-key", "--data-dir", h.dir], cliHost)).toBe(0);
      expect(out.join("\n")).toContain(`kept anchor wallet ${address}`);
      expect(out.join("\n")).toContain("balance on devnet: 1.5 (native coin)");
      // The key is sealed at rest: the file holds no hex secret that derives the address.
      expect(createAnchorWallet(h.ctx.config, h.ctx.sealer)).toEqual({ address: address!, created: false });
      expect(readFileSync(join(h.dir, "anchor.key"), "utf8")).toStartWith("v1.");
      expect(statSync(join(h.dir, "anchor.key")).mode & 0o077).toBe(0);

      // svc anchors status: anchors by backend and status, the anchor chain and wallet.
      const { accountId, auth } = owner();
      settle(accountId, "st");
      await proof(auth, "st");
      out.length = 0;
      expect(await dispatch(commandTree, ["anchors", "status", "--data-dir", h.dir], cliHost)).toBe(0);
      expect(out).toContain("log  anchored  1");
      expect(out).toContain(`evm anchoring on devnet (chain id ${DEVNET_CHAIN_ID})`);
      expect(out).toContain(`anchor wallet ${address}`);
    } finally {
      log.mockRestore();
    }
  });
});
