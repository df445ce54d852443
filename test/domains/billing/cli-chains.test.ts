/**
 * svc chains add|list|remove and svc setup --treasury, through the compiled binary, against a
 * real local chain for the RPC check. RPC URLs (which may hold a provider key) are never printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Address } from "viem";
import { readConfigFile } from "../../../src/config.ts";
import { loadConfig } from "../../../src/open.ts";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { billingMethods } from "../../../src/domains/billing/methods.ts";
import { runSvc, serveSvc, svcBinary } from "../../support/binary.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { tempDir } from "../../support/harness.ts";

const TREASURY = "0x6813eb9362372eef6200f3b1dbc3f819671cba69";
const SECRET_RPC = "http://127.0.0.1:1/v2/secret-provider-key";

let chain: Devnet;
let token: Address;

beforeAll(async () => {
  await svcBinary();
  chain = await startDevnet();
  token = await chain.deployToken();
}, 120_000);
afterAll(() => chain?.stop());

async function setUp(extra: string[] = []) {
  const dir = join(tempDir(), "data");
  const r = await runSvc(["setup", "--yes", "--data-dir", dir, ...extra]);
  expect(r.code).toBe(0);
  return { dir, out: r.stdout };
}

const svc = (dir: string, ...args: string[]) => runSvc([...args, "--data-dir", dir]);
const addDevnet = (dir: string, ...extra: string[]) => svc(dir, "chains", "add", "devnet", "--rpc", chain.url, "--chain-id", String(DEVNET_CHAIN_ID), "--usdt", token, "--confirmations", "2", ...extra);

describe("svc setup --treasury", () => {
  test("stores the checksummed treasury; off clears it; a bad address is a usage error that changes nothing", async () => {
    const { dir, out } = await setUp(["--treasury", TREASURY]);
    expect(out).toContain(`treasury: ${toChecksumAddress(TREASURY)}`);
    expect(loadConfig({ dataDir: dir }, {}).billing.treasury).toBe(toChecksumAddress(TREASURY));

    const again = await svc(dir, "setup", "--yes", "--treasury", toChecksumAddress(TREASURY));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("kept     config");

    for (const bad of ["0x1234", "not-an-address", TREASURY.replace("6813eb", "6813EB")]) {
      const r = await svc(dir, "setup", "--yes", "--treasury", bad);
      expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
      expect(r.stderr).toContain("--treasury");
    }
    expect(loadConfig({ dataDir: dir }, {}).billing.treasury).toBe(toChecksumAddress(TREASURY));

    const off = await svc(dir, "setup", "--yes", "--treasury", "off");
    expect(off.code).toBe(0);
    expect(off.stdout).toContain("treasury: off");
    expect(loadConfig({ dataDir: dir }, {}).billing.treasury).toBe("");
  }, 60_000);
});

describe("svc chains", () => {
  test("add checks the node's chain id, list shows it without RPC secrets, remove takes it out", async () => {
    const { dir } = await setUp(["--treasury", TREASURY]);
    const added = await addDevnet(dir, "--explorer", "https://explorer.test/");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`answers: chain id ${DEVNET_CHAIN_ID}`);
    expect(added.stdout).toContain("added chain devnet");
    expect(added.stdout).toContain("applies the next time svc serve starts");

    const config = loadConfig({ dataDir: dir }, {});
    expect(config.chains).toEqual([{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: toChecksumAddress(token), decimals: 6, confirmations: 2, explorer_url: "https://explorer.test" }]);
    expect(billingMethods(config)).toMatchObject({ deposits_enabled: true, chains: [{ name: "devnet", token: toChecksumAddress(token), confirmations: 2 }] });

    expect((await addDevnet(dir, "--explorer", "https://explorer.test")).stdout).toContain("no change");
    const clash = await svc(dir, "chains", "add", "devnet", "--rpc", chain.url, "--chain-id", String(DEVNET_CHAIN_ID), "--usdt", token, "--confirmations", "5");
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("--replace");
    const replaced = await svc(dir, "chains", "add", "devnet", "--rpc", chain.url, "--chain-id", String(DEVNET_CHAIN_ID), "--usdt", token, "--confirmations", "5", "--replace");
    expect(replaced.code).toBe(0);
    expect(replaced.stdout).toContain("changed chain devnet");
    expect(loadConfig({ dataDir: dir }, {}).chains[0]!.confirmations).toBe(5);

    // Unreachable node: added with a warning; the URL's path (a key, often) is never printed.
    const far = await svc(dir, "chains", "add", "far", "--rpc", SECRET_RPC, "--chain-id", "5", "--usdt", token, "--confirmations", "1");
    expect(far.code).toBe(0);
    expect(far.stdout).toContain("could not be checked");
    expect(far.stdout + far.stderr).not.toContain("secret-provider-key");

    const list = await svc(dir, "chains", "list");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`treasury: ${toChecksumAddress(TREASURY)}`);
    expect(list.stdout).toContain("devnet  chain id 31337");
    expect(list.stdout).toContain("far  chain id 5");
    expect(list.stdout).not.toContain("secret-provider-key");
    const json = JSON.parse((await svc(dir, "chains", "list", "--json")).stdout);
    expect(json.treasury).toBe(toChecksumAddress(TREASURY));
    expect(json.chains.map((c: { name: string; rpc_url: string }) => [c.name, c.rpc_url])).toEqual([
      ["devnet", chain.url],
      ["far", "http://127.0.0.1:1/…"],
    ]);

    const removed = await svc(dir, "chains", "remove", "far");
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("removed chain far");
    expect(loadConfig({ dataDir: dir }, {}).chains.map((c) => c.name)).toEqual(["devnet"]);
    const unknown = await svc(dir, "chains", "remove", "far");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no chain far (configured: devnet)");
    expect(JSON.stringify(readConfigFile(join(dir, "svc.toml")))).not.toContain("secret-provider-key");
  }, 60_000);

  test("a node on another chain id is refused and nothing changes; bad flags are usage errors", async () => {
    const { dir } = await setUp();
    const wrong = await svc(dir, "chains", "add", "devnet", "--rpc", chain.url, "--chain-id", "1", "--usdt", token, "--confirmations", "2");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`is on chain id ${DEVNET_CHAIN_ID}, not 1`);
    expect(loadConfig({ dataDir: dir }, {}).chains).toEqual([]);

    const cases: string[][] = [
      ["chains", "add", "Bad Name", "--rpc", chain.url, "--chain-id", "1", "--usdt", token, "--confirmations", "2"],
      ["chains", "add", "x", "--chain-id", "1", "--usdt", token, "--confirmations", "2"],
      ["chains", "add", "x", "--rpc", "ftp://x", "--chain-id", "1", "--usdt", token, "--confirmations", "2"],
      ["chains", "add", "x", "--rpc", chain.url, "--chain-id", "one", "--usdt", token, "--confirmations", "2"],
      ["chains", "add", "x", "--rpc", chain.url, "--chain-id", "1", "--usdt", "0x12", "--confirmations", "2"],
      ["chains", "add", "x", "--rpc", chain.url, "--chain-id", "1", "--usdt", token, "--confirmations", "0"],
      ["chains", "add", "x", "--rpc", chain.url, "--chain-id", "1", "--usdt", token, "--confirmations", "2", "--decimals", "40"],
    ];
    for (const args of cases) {
      const r = await svc(dir, ...args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
    expect(loadConfig({ dataDir: dir }, {}).chains).toEqual([]);
    // Without a treasury the chain is added, and the command says deposits stay off.
    const added = await addDevnet(dir);
    expect(added.stdout).toContain("deposits stay off until a treasury is set");
  }, 60_000);

  test("with svc serve running, the commands say a restart is needed", async () => {
    const { dir } = await setUp(["--treasury", TREASURY, "--replica", "off"]);
    const served = await serveSvc(dir);
    try {
      const added = await addDevnet(dir);
      expect(added.code).toBe(0);
      expect(added.stdout).toMatch(/svc serve \(pid \d+\) is running: restart it to apply/);
      const treasury = await svc(dir, "setup", "--yes", "--treasury", "off");
      expect(treasury.stdout).toMatch(/svc serve \(pid \d+\) is running: restart it/);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 60_000);
});
