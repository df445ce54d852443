/**
 * Signer rotation: the pubkey route's signer list and windows, old receipts staying valid,
 * a retired key vouching for nothing dated after its retirement, a running process following
 * a rotation made by another (the CLI) without a restart, and the key file and the record
 * staying in step after crashes and lost keys. Signatures are checked with viem.
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bytesToHex } from "@noble/hashes/utils.js";
import { recoverMessageAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadConfig } from "../../../src/open.ts";
import { openContext } from "../../../src/open.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { Signer } from "../../../src/core/signer.ts";
import { rotateSigner } from "../../../src/domains/receipts/signers.ts";
import { runSvc, svcBinary } from "../../support/binary.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { type Harness, makeHarness, tempDir } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Hex = `0x${string}`;
const iso = (ms: number) => new Date(ms).toISOString();
const b64 = (payload: unknown) => Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");

function funded() {
  const { account } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 100_000_000, { type: "deposit" });
  return account.id;
}

function settle(accountId: string) {
  const r = h.ctx.meter.reserve({ accountId, keyId: null, amount: 10_000, kind: "inference" });
  return h.ctx.meter.settle(r, 5_000).receipt!;
}

const pubkey = async () => (await h.json("GET", "/v1/receipts/pubkey")).body;
const verify = async (receipt: string, signature: string) => (await h.json("POST", "/v1/receipts/verify", { body: { receipt, signature } })).body;
const recover = async (receipt: string, signature: string): Promise<string> => recoverMessageAddress({ message: receipt, signature: signature as Hex });
/** The key as a third party who stole it would hold it. */
const keyFileAccount = (dir: string) => privateKeyToAccount(`0x${bytesToHex(Signer.readKeyFile(join(dir, "signer.key"), h.ctx.sealer))}`);

describe("signer rotation", () => {
  test("a fresh deployment publishes one current signer: the key file's, also on the banner", async () => {
    h = makeHarness();
    const pub = await pubkey();
    expect(pub.address).toBe(keyFileAccount(h.dir).address as string);
    expect(pub.signers).toEqual([{ address: pub.address, valid_from: expect.any(String), valid_until: null }]);
    expect(Date.parse(pub.signers[0].valid_from)).toBeLessThanOrEqual(h.clock.now());
    expect((await h.json("GET", "/")).body.signer).toBe(pub.address);
  });

  test("after rotation old receipts still verify, new ones carry the new key, and pubkey lists both windows", async () => {
    h = makeHarness();
    const account = funded();
    const before = settle(account);
    const oldAddress = (await pubkey()).address;

    h.clock.advance(3_600_000);
    const rotatedAt = h.clock.now();
    const rotation = rotateSigner(h.ctx);
    expect(rotation.retired).toEqual({ address: oldAddress, valid_from: expect.any(String), valid_until: iso(rotatedAt) });
    const newAddress = rotation.signer.address;
    expect(newAddress).not.toBe(oldAddress);
    expect(keyFileAccount(h.dir).address as string).toBe(newAddress); // the old key is gone from disk

    h.clock.advance(1_000);
    const after = settle(account);
    expect(await recover(before.receipt, before.signature)).toBe(oldAddress);
    expect(await recover(after.receipt, after.signature)).toBe(newAddress);
    expect(after.signer).toBe(newAddress);

    const pub = await pubkey();
    expect(pub.address).toBe(newAddress);
    expect(pub.signers).toEqual([
      { address: oldAddress, valid_from: rotation.retired!.valid_from, valid_until: iso(rotatedAt) },
      { address: newAddress, valid_from: iso(rotatedAt), valid_until: null },
    ]);
    expect((await h.json("GET", "/")).body.signer).toBe(newAddress);

    expect(await verify(before.receipt, before.signature)).toMatchObject({ valid: true, recovered_address: oldAddress, signer: { address: oldAddress, current: false, valid_until: iso(rotatedAt) } });
    expect(await verify(after.receipt, after.signature)).toMatchObject({ valid: true, recovered_address: newAddress, signer: { address: newAddress, current: true } });
    expect(h.ctx.audit.recent(5).find((e) => e.action === "signer.rotate")).toMatchObject({ actor: "cli", target: newAddress, detail: { retired: oldAddress } });
  });

  test("a retired key vouches only for statements dated up to its retirement", async () => {
    h = makeHarness();
    const stolen = keyFileAccount(h.dir);
    h.clock.advance(60_000);
    const rotatedAt = h.clock.now();
    rotateSigner(h.ctx);

    const sign = async (payload: Record<string, unknown>) => {
      const receipt = b64(payload);
      return verify(receipt, await stolen.signMessage({ message: receipt }));
    };
    expect(await sign({ v: 1, type: "receipt", settled_at: iso(rotatedAt - 1) })).toMatchObject({ valid: true, signer: { current: false } });
    // The retirement's own millisecond still counts: a settle that committed just before it can carry it.
    expect(await sign({ v: 1, type: "receipt", settled_at: iso(rotatedAt) })).toMatchObject({ valid: true });
    expect(await sign({ v: 1, type: "mandate-proof", issued_at: iso(rotatedAt - 1) })).toMatchObject({ valid: true });
    const late = await sign({ v: 1, type: "receipt", settled_at: iso(rotatedAt + 1) });
    expect(late).toMatchObject({ valid: false, recovered_address: stolen.address, reason: expect.stringContaining("retired") });
    expect(await sign({ v: 1, type: "receipt", settled_at: iso(rotatedAt + 86_400_000) })).toMatchObject({ valid: false });
    expect(await sign({ v: 1, type: "receipt" })).toMatchObject({ valid: false, reason: expect.stringContaining("carries no settled_at, issued_at, created_at") });
    expect(await sign({ v: 1, type: "anchor-log-entry", created_at: iso(rotatedAt - 1) })).toMatchObject({ valid: true });
    expect(await sign({ v: 1, type: "receipt", settled_at: "yesterday" })).toMatchObject({ valid: false, reason: expect.stringContaining("not an ISO 8601") });
    // settled_at wins over issued_at: a receipt cannot borrow an older date from another field.
    expect(await sign({ v: 1, settled_at: iso(rotatedAt + 1), issued_at: iso(rotatedAt - 1) })).toMatchObject({ valid: false });
  });

  test("a running process follows a rotation another process made: its next receipt is signed by the new key", async () => {
    h = makeHarness();
    const account = funded();
    const first = settle(account);
    // Another process on the same data dir, as `svc keys rotate-signer` is.
    const cli = openContext(loadConfig({ dataDir: h.dir }, {}), { clock: h.clock, log: silentLogger });
    let newAddress: string;
    try {
      h.clock.advance(1_000);
      newAddress = rotateSigner(cli).signer.address;
    } finally {
      cli.close();
    }
    h.clock.advance(1_000);
    const second = settle(account);
    expect(await recover(first.receipt, first.signature)).not.toBe(newAddress);
    expect(await recover(second.receipt, second.signature)).toBe(newAddress);
    expect((await verify(first.receipt, first.signature)).valid).toBe(true);
    expect((await verify(second.receipt, second.signature)).valid).toBe(true);
  });

  test("a crash between replacing the key file and recording it: old key signs on inside its window; the next open records the new one", async () => {
    h = makeHarness();
    const account = funded();
    const oldAddress = (await pubkey()).address;
    const replaced = Signer.replaceKeyFile(join(h.dir, "signer.key"), h.ctx.sealer); // ...and the process died here
    const meanwhile = settle(account);
    expect(await recover(meanwhile.receipt, meanwhile.signature)).toBe(oldAddress);

    h.clock.advance(1_000);
    const reopenedAt = h.clock.now();
    const next = openContext(loadConfig({ dataDir: h.dir }, {}), { clock: h.clock, log: silentLogger });
    next.close();
    expect((await pubkey()).signers).toEqual([
      { address: oldAddress, valid_from: expect.any(String), valid_until: iso(reopenedAt) },
      { address: replaced.address, valid_from: iso(reopenedAt), valid_until: null },
    ]);
    expect((await verify(meanwhile.receipt, meanwhile.signature)).valid).toBe(true);
    expect(settle(account).signer).toBe(replaced.address);
  });

  test("a lost key replaced by setup becomes the current signer; a retired key put back is refused", async () => {
    const dir = tempDir();
    const keyFile = join(dir, "signer.key");
    h = makeHarness({ dir });
    const account = funded();
    const before = settle(account);
    const firstKeyFile = readFileSync(keyFile);
    h.close();

    rmSync(keyFile); // lost; setup (run by the harness) makes a new key
    h = makeHarness({ dir, clock: h.clock });
    const pub = await pubkey();
    expect(pub.signers).toHaveLength(2);
    expect(pub.signers[0]).toMatchObject({ address: before.signer, valid_until: expect.any(String) });
    expect(pub.address).not.toBe(before.signer);
    expect(settle(account).signer).toBe(pub.address);
    expect((await verify(before.receipt, before.signature)).valid).toBe(true);
    h.close();

    // The first key comes back (an old backup copied over the current one): never signed with again.
    writeFileSync(keyFile, firstKeyFile);
    expect(() => openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger })).toThrow(/retired/);
  });

  describe("svc keys rotate-signer (compiled binary)", () => {
    beforeAll(async () => {
      await svcBinary();
    }, 120_000);

    test("rotates while a server process keeps running; old receipts still verify with svc receipts verify", async () => {
      const dir = tempDir();
      h = makeHarness({ dir });
      const account = funded();
      const old = settle(account);

      const r = await runSvc(["keys", "rotate-signer", "--data-dir", dir]);
      expect(r.code).toBe(0);
      const newAddress = /new receipt signer (0x[0-9a-fA-F]{40})/.exec(r.stdout)![1]!;
      expect(r.stdout).toContain(`retired ${old.signer}`);
      expect(r.stdout).toContain("no restart needed");

      const fresh = settle(account); // this process never restarted
      expect(await recover(fresh.receipt, fresh.signature)).toBe(newAddress);
      const pub = await pubkey();
      expect(pub.signers.map((s: { address: string }) => s.address)).toEqual([old.signer, newAddress]);
      expect(pub.signers[0].valid_until).toBe(pub.signers[1].valid_from);

      const check = await runSvc(["receipts", "verify", "-", "--data-dir", dir], { stdin: JSON.stringify({ receipt: old.receipt, signature: old.signature }) });
      expect(check.code).toBe(0);
      expect(check.stdout).toContain(`${old.signer}, this deployment's signer from`);
    });
  });
});
