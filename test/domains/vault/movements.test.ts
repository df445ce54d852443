/**
 * Positions moving: transfers between holders (never below zero, also when fired all at once),
 * distributions pro rata with floor and the remainder stated, the lists' envelopes and caps'
 * order, and the vault_* events delivered to a real receiver carrying no amount.
 */
import { describe, expect, test } from "bun:test";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { registerWebhookJobs } from "../../../src/domains/webhooks/delivery.ts";
import type { Harness } from "../../support/harness.ts";
import { startReceiver } from "../../support/receiver.ts";
import { call, keysOf, made, newAsset, newHolder, tenant, type Tenant, USD, vaultHarness, wallet, vaultPerTest } from "./vault-support.ts";

const fresh = vaultPerTest();
let h: Harness | undefined;
const setUp = () => {
  const w = fresh();
  h = w.h;
  return w;
};

const transfer = (t: Tenant, body: Record<string, unknown>) => call(t, "POST", "/v1/vault/transfers", body);

describe("transfers", () => {
  test("moves a position between two holders; the list ({transfers}) holds issues and transfers, newest first", async () => {
    const { a } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id, { amount_micro_usd: 100 * USD });
    const bob = await newHolder(a, asset.id, { name: "Bob" });
    const moved = await transfer(a, { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 40 * USD, memo: "secondary sale" });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ asset_id: asset.id, kind: "transfer", from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 40 * USD, memo: "secondary sale" });
    expect(moved.body.id).toMatch(/^vtx_/);

    const holders = (await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`)).body.holders;
    expect(holders.map((x: { position_micro_usd: number }) => x.position_micro_usd)).toEqual([60 * USD, 40 * USD]);

    const list = await call(a, "GET", "/v1/vault/transfers");
    expect(Object.keys(list.body)).toEqual(["transfers"]);
    expect(list.body.transfers.map((x: { kind: string }) => x.kind)).toEqual(["transfer", "issue"]);
    expect(list.body.transfers[0]).toEqual(moved.body);
    const filtered = await call(a, "GET", `/v1/vault/transfers?asset_id=${asset.id}`);
    expect(filtered.body.transfers).toHaveLength(2);
    const other = await newAsset(a, { name: "Other" });
    expect((await call(a, "GET", `/v1/vault/transfers?asset_id=${other.id}`)).body.transfers).toEqual([]);
  });

  test("a transfer beyond the position is refused and moves nothing; bad input 400; another account's ids 404", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id, { amount_micro_usd: 10 });
    const bob = await newHolder(a, asset.id, { name: "Bob" });
    const over = await transfer(a, { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 11 });
    expect([over.status, over.body.error.type, over.body.error.holder_id]).toEqual([409, "insufficient_position", ada.id]);
    const base = { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 1 };
    for (const [body, param] of [
      [{ ...base, asset_id: undefined }, "asset_id"],
      [{ ...base, from_holder_id: undefined }, "from_holder_id"],
      [{ ...base, to_holder_id: ada.id }, "to_holder_id"],
      [{ ...base, amount_micro_usd: 0 }, "amount_micro_usd"],
      [{ ...base, amount_micro_usd: -1 }, "amount_micro_usd"],
      [{ ...base, amount_micro_usd: 2.5 }, "amount_micro_usd"],
      [{ ...base, amount_micro_usd: "1" }, "amount_micro_usd"],
      [{ ...base, memo: "" }, "memo"],
      [{ ...base, fee: 1 }, "fee"],
    ] as [Record<string, unknown>, string][]) {
      const r = await transfer(a, body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
    const theirs = await transfer(b, base);
    const unknown = await transfer(b, { ...base, asset_id: "va_nope" });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expect((await transfer(a, { ...base, to_holder_id: "vh_nope" })).status).toBe(404);
    expect((await call(b, "GET", `/v1/vault/transfers?asset_id=${asset.id}`)).body).toEqual((await call(b, "GET", "/v1/vault/transfers?asset_id=va_nope")).body);
    expect((await call(b, "GET", "/v1/vault/transfers")).body).toEqual({ transfers: [] });
    const holders = (await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`)).body.holders;
    expect(holders.map((x: { position_micro_usd: number }) => x.position_micro_usd)).toEqual([10, 0]);
  });

  test("many transfers fired at once never make a position negative: exactly as many succeed as the position covers", async () => {
    const { a } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id, { amount_micro_usd: 10 * USD });
    const bob = await newHolder(a, asset.id, { name: "Bob" });
    const cy = await newHolder(a, asset.id, { name: "Cy", amount_micro_usd: 1 * USD });
    // 60 transfers of 0.5 USD out of Ada's 10 USD (to two holders, some back and forth with Cy): only 20 can be covered.
    const shots = Array.from({ length: 60 }, (_, i) =>
      transfer(a, { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: i % 2 ? bob.id : cy.id, amount_micro_usd: USD / 2 }),
    );
    const results = await Promise.all(shots);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.type).toBe("insufficient_position");

    const list = (await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`)).body;
    const byName = Object.fromEntries(list.holders.map((x: { name: string; position_micro_usd: number }) => [x.name, x.position_micro_usd]));
    expect(byName.Ada).toBe(0);
    expect(byName.Bob + byName.Cy).toBe(10 * USD + 1 * USD);
    expect(list.issued_micro_usd).toBe(11 * USD);
    expect(h!.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM vault_holders WHERE position_micro_usd < 0").get()!.n).toBe(0);
    // And the table itself refuses a negative position, should a bug ever skip the check.
    expect(() => h!.ctx.db.query("UPDATE vault_holders SET position_micro_usd = position_micro_usd - 1 WHERE id = ?").run(ada.id)).toThrow(/CHECK/);
    // The chain holds one entry per movement that happened, and none for the refused ones.
    expect(h!.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vault_chain WHERE asset_id = ? AND type = 'transferred'").get(asset.id)!.n).toBe(20);
  });
});

describe("distributions", () => {
  test("pro rata with floor: the shares never exceed the amount and the remainder stays with the issuer", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id, { amount_micro_usd: 1 });
    const bob = await newHolder(a, asset.id, { name: "Bob", amount_micro_usd: 1 });
    const cy = await newHolder(a, asset.id, { name: "Cy", amount_micro_usd: 1 });
    await newHolder(a, asset.id, { name: "Dee" }); // no position: no share
    const d = await made(a, "POST", "/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 100, memo: "Q4 coupon" });
    expect(d).toMatchObject({ asset_id: asset.id, amount_micro_usd: 100, distributed_micro_usd: 99, remainder_micro_usd: 1, basis_micro_usd: 3, holders: 3, memo: "Q4 coupon" });
    expect(d.shares).toEqual([
      { holder_id: ada.id, position_micro_usd: 1, amount_micro_usd: 33 },
      { holder_id: bob.id, position_micro_usd: 1, amount_micro_usd: 33 },
      { holder_id: cy.id, position_micro_usd: 1, amount_micro_usd: 33 },
    ]);

    // Uneven positions, amounts near the top of the range: BigInt arithmetic, no float rounding.
    const big = await newAsset(a, { name: "Big", total_micro_usd: 10 ** 15 });
    await newHolder(a, big.id, { amount_micro_usd: 7 * 10 ** 14 });
    await newHolder(a, big.id, { name: "B", amount_micro_usd: 3 * 10 ** 14 - 1 });
    const d2 = await made(a, "POST", "/v1/vault/distributions", { asset_id: big.id, amount_micro_usd: 999_999_999_999_999 });
    const expected = [(999_999_999_999_999n * 7n * 10n ** 14n) / (10n ** 15n - 1n), (999_999_999_999_999n * (3n * 10n ** 14n - 1n)) / (10n ** 15n - 1n)].map(Number);
    expect(d2.shares.map((s: { amount_micro_usd: number }) => s.amount_micro_usd)).toEqual(expected);
    expect(d2.distributed_micro_usd + d2.remainder_micro_usd).toBe(999_999_999_999_999);

    const holders = (await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`)).body.holders;
    expect(holders.map((x: { distributed_micro_usd: number; position_micro_usd: number }) => [x.position_micro_usd, x.distributed_micro_usd])).toEqual([
      [1, 33],
      [1, 33],
      [1, 33],
      [0, 0],
    ]);

    const list = await call(a, "GET", "/v1/vault/distributions");
    expect(Object.keys(list.body)).toEqual(["distributions"]);
    expect(list.body.distributions.map((x: { id: string }) => x.id)).toEqual([d2.id, d.id]);
    const { shares, ...summary } = d;
    expect(list.body.distributions[1]).toEqual(summary);
    expect(shares).toHaveLength(3);
    expect((await call(a, "GET", `/v1/vault/distributions?asset_id=${asset.id}`)).body.distributions).toHaveLength(1);
    expect((await call(a, "GET", `/v1/vault/distributions/${d.id}`)).body).toEqual(d);

    const theirs = await call(b, "GET", `/v1/vault/distributions/${d.id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual((await call(b, "GET", "/v1/vault/distributions/vdist_nope")).body);
    expect((await call(b, "POST", "/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 5 })).status).toBe(404);
    expect((await call(b, "GET", `/v1/vault/distributions?asset_id=${asset.id}`)).status).toBe(404);
    expect((await call(b, "GET", "/v1/vault/distributions")).body).toEqual({ distributions: [] });
  });

  test("refused with no positions (409); bad input 400 naming the field", async () => {
    const { a } = setUp();
    const asset = await newAsset(a);
    await newHolder(a, asset.id);
    const none = await call(a, "POST", "/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 5 });
    expect([none.status, none.body.error.type]).toEqual([409, "no_positions"]);
    for (const [body, param] of [
      [{ amount_micro_usd: 5 }, "asset_id"],
      [{ asset_id: asset.id }, "amount_micro_usd"],
      [{ asset_id: asset.id, amount_micro_usd: 0 }, "amount_micro_usd"],
      [{ asset_id: asset.id, amount_micro_usd: 1e16 }, "amount_micro_usd"],
      [{ asset_id: asset.id, amount_micro_usd: 5, per_holder: true }, "per_holder"],
    ] as [Record<string, unknown>, string][]) {
      const r = await call(a, "POST", "/v1/vault/distributions", body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
  });
});

describe("events", () => {
  test("vault_transfer_sent/received, vault_distribution and vault_attestation reach a subscribed receiver, amount-free; a holder's own account hears of its position", async () => {
    const { a, b } = setUp();
    const rx = await startReceiver();
    registerWebhookJobs(h!.ctx);
    const events = ["vault_transfer_sent", "vault_transfer_received", "vault_distribution", "vault_attestation"];
    for (const [t, path] of [
      [a, "/issuer"],
      [b, "/holder"],
    ] as const) {
      const sub = await made(t, "POST", "/v1/webhooks", { url: rx.url(path), events });
      rx.setSecret(path, sub.secret);
    }
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id, { amount_micro_usd: 123_456_789 });
    const bob = await newHolder(a, asset.id, { name: "Bob" });
    // Bob binds a wallet that is linked to account b: b hears of Bob's position.
    const bobWallet = wallet();
    addWallet(h!.ctx, b.accountId, bobWallet.address);
    const claim = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${bob.id}/claims`, {});
    const bound = await h!.json("POST", `/v1/vault/claims/${claim.token}`, { body: { wallet: bobWallet.address, signature: await bobWallet.signMessage({ message: claim.message }) } });
    expect(bound.status).toBe(200);

    const moved = await made(a, "POST", "/v1/vault/transfers", { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 23_456_789 });
    const dist = await made(a, "POST", "/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 7_654_321 });
    const auditor = wallet();
    const attester = await made(a, "POST", `/v1/vault/assets/${asset.id}/attesters`, { name: "Kline", roles: ["auditor"], wallet: auditor.address });
    const statement = "Holdings confirmed: 123456789 units in custody.";
    const att = await made(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, {
      attester_id: attester.id,
      statement,
      signature: await auditor.signMessage({ message: `svc vault attestation\nasset: ${asset.id}\n\n${statement}` }),
    });

    await h!.ctx.scheduler.runDue();
    await rx.waitFor(() => rx.received.length >= 7, "seven vault events");
    const got = (path: string) => rx.received.filter((r) => r.path === path).map((r) => ({ type: r.json.type, data: r.json.data, valid: r.signatureValid }));
    const issuer = got("/issuer");
    expect(issuer.map((e) => e.type).sort()).toEqual(["vault_attestation", "vault_distribution", "vault_transfer_received", "vault_transfer_received", "vault_transfer_sent"]);
    const holder = got("/holder");
    expect(holder.map((e) => e.type).sort()).toEqual(["vault_distribution", "vault_transfer_received"]);
    for (const e of [...issuer, ...holder]) {
      expect(e.valid).toBe(true);
      expect(keysOf(e.data).filter((k) => /amount|micro_usd|position|statement|name|email/.test(k))).toEqual([]);
      const text = JSON.stringify(e.data);
      for (const figure of ["123456789", "23456789", "7654321", "100000000", "Holdings"]) expect(text).not.toContain(figure);
    }
    const sent = issuer.find((e) => e.type === "vault_transfer_sent")!.data;
    expect(sent).toEqual({ asset_id: asset.id, transfer_id: moved.id, kind: "transfer", from_holder_id: ada.id, to_holder_id: bob.id, chain_seq: moved.chain_seq, at: moved.created_at });
    expect(issuer.find((e) => e.type === "vault_distribution")!.data).toMatchObject({ asset_id: asset.id, distribution_id: dist.id, holders: 2 });
    expect(issuer.find((e) => e.type === "vault_attestation")!.data).toEqual({
      asset_id: asset.id,
      attestation_id: att.id,
      attester_id: attester.id,
      roles: ["auditor"],
      chain_seq: att.chain_seq,
      at: att.recorded_at,
    });
    await rx.close();
  });
});
