/**
 * /v1/vault registry routes (session): assets, holders, attesters and their signed statements,
 * documents. Each route's success, its §2.1 envelope key for key, bad input table-driven with
 * the field named, and another account's ids answering 404 exactly like unknown ones.
 */
import { describe, expect, test } from "bun:test";
import type { Harness } from "../../support/harness.ts";
import { call, made, newAsset, newHolder, tenant, type Tenant, USD, vaultHarness, wallet, vaultPerTest } from "./vault-support.ts";

const fresh = vaultPerTest();
let h: Harness | undefined;
const setUp = () => {
  const w = fresh();
  h = w.h;
  return w;
};

const keys = (o: object) => Object.keys(o).sort();

/** Another tenant's id answers what an unknown one does: the same 404 body. */
async function sameAsUnknown(other: Tenant, method: string, path: string, unknownPath: string, body?: unknown) {
  const theirs = await call(other, method, path, body);
  const unknown = await call(other, method, unknownPath, body);
  expect({ path, status: theirs.status }).toEqual({ path, status: 404 });
  expect(theirs.body).toEqual(unknown.body);
}

async function badInput(t: Tenant, method: string, path: string, cases: [unknown, string][]) {
  for (const [body, param] of cases) {
    const r = await call(t, method, path, body);
    expect({ body, status: r.status, type: r.body.error?.type, param: r.body.error?.param }).toEqual({ body, status: 400, type: "invalid_request", param });
  }
}

describe("assets", () => {
  test("create, list ({assets}), get; another account's asset is 404 like an unknown one", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a, { symbol: "HF1", description: "A harbour property fund" });
    expect(asset).toMatchObject({ name: "Harbour Fund I", symbol: "HF1", description: "A harbour property fund", total_micro_usd: 1000 * USD, issued_micro_usd: 0, unissued_micro_usd: 1000 * USD, holders: 0 });
    expect(asset.id).toMatch(/^va_/);
    expect(asset.chain_head.seq).toBe(1);

    const list = await call(a, "GET", "/v1/vault/assets");
    expect(keys(list.body)).toEqual(["assets"]);
    expect(list.body.assets).toEqual([asset]);
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}`)).body).toEqual(asset);

    expect((await call(b, "GET", "/v1/vault/assets")).body).toEqual({ assets: [] });
    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}`, "/v1/vault/assets/va_unknown");
  });

  test("bad input answers 400 naming the field", async () => {
    const { a } = setUp();
    const base = { name: "X", total_micro_usd: USD };
    await badInput(a, "POST", "/v1/vault/assets", [
      [{ total_micro_usd: USD }, "name"],
      [{ ...base, name: "" }, "name"],
      [{ ...base, name: "   " }, "name"],
      [{ ...base, name: "x".repeat(201) }, "name"],
      [{ name: "X" }, "total_micro_usd"],
      [{ ...base, total_micro_usd: 0 }, "total_micro_usd"],
      [{ ...base, total_micro_usd: 1.5 }, "total_micro_usd"],
      [{ ...base, total_micro_usd: "1000000" }, "total_micro_usd"],
      [{ ...base, total_micro_usd: 2 ** 62 }, "total_micro_usd"],
      [{ ...base, symbol: "lower" }, "symbol"],
      [{ ...base, symbol: "TOO-LONG-A-SYMBOL" }, "symbol"],
      [{ ...base, description: "x".repeat(2001) }, "description"],
      [{ ...base, owner: "me" }, "owner"],
    ]);
    expect((await call(a, "GET", "/v1/vault/assets")).body.assets).toEqual([]);
  });
});

describe("holders", () => {
  test("add (with an issue), issue more, list with its figures; the supply bounds issues", async () => {
    const { a } = setUp();
    const asset = await newAsset(a, { total_micro_usd: 100 * USD });
    const ada = await newHolder(a, asset.id, { email: "Ada@Example.com", amount_micro_usd: 60 * USD, memo: "subscription" });
    expect(ada).toMatchObject({ asset_id: asset.id, name: "Ada", email: "ada@example.com", wallet: null, position_micro_usd: 60 * USD, distributed_micro_usd: 0, claimed_at: null });
    expect(ada.issue).toMatchObject({ kind: "issue", from_holder_id: null, to_holder_id: ada.id, amount_micro_usd: 60 * USD, memo: "subscription" });
    const bob = await newHolder(a, asset.id, { name: "Bob" });
    expect(bob.issue).toBeNull();
    expect(bob.position_micro_usd).toBe(0);

    const issued = await made(a, "POST", `/v1/vault/assets/${asset.id}/holders/${bob.id}/issue`, { amount_micro_usd: 30 * USD });
    expect(issued).toMatchObject({ kind: "issue", to_holder_id: bob.id, amount_micro_usd: 30 * USD });

    const over = await call(a, "POST", `/v1/vault/assets/${asset.id}/holders/${bob.id}/issue`, { amount_micro_usd: 10 * USD + 1 });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "exceeds_supply", unissued_micro_usd: 10 * USD });
    const overNew = await call(a, "POST", `/v1/vault/assets/${asset.id}/holders`, { name: "Cy", amount_micro_usd: 11 * USD });
    expect(overNew.body.error.type).toBe("exceeds_supply");

    const dup = await call(a, "POST", `/v1/vault/assets/${asset.id}/holders`, { name: "Ada again", email: "ada@example.com" });
    expect([dup.status, dup.body.error.type, dup.body.error.param]).toEqual([409, "holder_exists", "email"]);

    const list = await call(a, "GET", `/v1/vault/assets/${asset.id}/holders`);
    expect(keys(list.body)).toEqual(["asset_id", "holders", "issued_micro_usd", "pending_claims_micro_usd", "total_micro_usd"]);
    expect(list.body).toMatchObject({ asset_id: asset.id, total_micro_usd: 100 * USD, issued_micro_usd: 90 * USD, pending_claims_micro_usd: 90 * USD });
    expect(list.body.holders.map((x: { name: string; position_micro_usd: number }) => [x.name, x.position_micro_usd])).toEqual([
      ["Ada", 60 * USD],
      ["Bob", 30 * USD],
    ]);
    // Refused writes left no holder behind (the failed add rolled back with its issue).
    expect(list.body.holders).toHaveLength(2);
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}`)).body).toMatchObject({ issued_micro_usd: 90 * USD, unissued_micro_usd: 10 * USD, holders: 2 });
  });

  test("bad input answers 400 naming the field; another account's asset and holder answer 404", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const ada = await newHolder(a, asset.id);
    await badInput(a, "POST", `/v1/vault/assets/${asset.id}/holders`, [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "A", email: "not-an-email" }, "email"],
      [{ name: "A", amount_micro_usd: 0 }, "amount_micro_usd"],
      [{ name: "A", amount_micro_usd: -5 }, "amount_micro_usd"],
      [{ name: "A", amount_micro_usd: 0.5 }, "amount_micro_usd"],
      [{ name: "A", memo: "x".repeat(501) }, "memo"],
      [{ name: "A", wallet: "0x0000000000000000000000000000000000000001" }, "wallet"],
    ]);
    await badInput(a, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/issue`, [
      [{}, "amount_micro_usd"],
      [{ amount_micro_usd: 0 }, "amount_micro_usd"],
      [{ amount_micro_usd: "5" }, "amount_micro_usd"],
      [{ amount_micro_usd: 5, extra: 1 }, "extra"],
    ]);
    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}/holders`, "/v1/vault/assets/va_nope/holders");
    await sameAsUnknown(b, "POST", `/v1/vault/assets/${asset.id}/holders`, "/v1/vault/assets/va_nope/holders", { name: "Eve" });
    await sameAsUnknown(b, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/issue`, "/v1/vault/assets/va_nope/holders/vh_nope/issue", { amount_micro_usd: 1 });
    // A holder of another of the account's assets is not a holder of this one.
    const other = await newAsset(a, { name: "Other" });
    await sameAsUnknown(a, "POST", `/v1/vault/assets/${other.id}/holders/${ada.id}/issue`, `/v1/vault/assets/${other.id}/holders/vh_nope/issue`, { amount_micro_usd: 1 });
  });
});

describe("attesters and attestations", () => {
  test("an attester's statement is recorded when its signature recovers to the attester's wallet", async () => {
    const { a } = setUp();
    const asset = await newAsset(a);
    const auditor = wallet();
    const attester = await made(a, "POST", `/v1/vault/assets/${asset.id}/attesters`, { name: "Kline & Co", roles: ["auditor", "legal", "auditor"], wallet: auditor.address });
    expect(attester).toMatchObject({ asset_id: asset.id, name: "Kline & Co", roles: ["auditor", "legal"], wallet: auditor.address });

    const attesters = await call(a, "GET", `/v1/vault/assets/${asset.id}/attesters`);
    expect(keys(attesters.body)).toEqual(["asset_id", "attesters", "roles"]);
    expect(attesters.body.roles).toEqual(["auditor", "custodian", "legal", "valuer", "trustee", "administrator"]);
    expect(attesters.body.attesters).toEqual([attester]);

    const statement = "We audited the fund's holdings as of 2026-11-20 and found them as stated.";
    const message = `svc vault attestation\nasset: ${asset.id}\n\n${statement}`;
    const signature = await auditor.signMessage({ message });
    const recorded = await made(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, { attester_id: attester.id, statement, signature });
    expect(recorded).toMatchObject({ asset_id: asset.id, attester_id: attester.id, attester_name: "Kline & Co", roles: ["auditor", "legal"], statement, signed_message: message, signature, signer: auditor.address });
    expect(recorded.statement_sha256).toBe(new Bun.CryptoHasher("sha256").update(statement).digest("hex"));

    // The same signature again: the record already made, nothing appended.
    const again = await call(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, { attester_id: attester.id, statement, signature });
    expect([again.status, again.body.id]).toEqual([200, recorded.id]);

    // Signed by someone else, or over another asset's message: refused, naming the signature.
    const stranger = await wallet().signMessage({ message });
    const forged = await call(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, { attester_id: attester.id, statement, signature: stranger });
    expect([forged.status, forged.body.error.param]).toEqual([400, "signature"]);
    expect(forged.body.error.message).toContain(auditor.address);
    const other = await newAsset(a, { name: "Other" });
    const replay = await call(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, {
      attester_id: attester.id,
      statement: "x",
      signature: await auditor.signMessage({ message: `svc vault attestation\nasset: ${other.id}\n\nx` }),
    });
    expect([replay.status, replay.body.error.param]).toEqual([400, "signature"]);

    const list = await call(a, "GET", `/v1/vault/assets/${asset.id}/attestations`);
    expect(keys(list.body)).toEqual(["asset_id", "attestations", "trust_model"]);
    expect(list.body.attestations).toEqual([recorded]);
    expect(list.body.trust_model).toContain("nor for the truth");
    // Sealed at rest: the statement's text is not in the database file's row.
    const row = h!.ctx.db.query<{ statement_sealed: string }, []>("SELECT statement_sealed FROM vault_attestations").get()!;
    expect(row.statement_sealed).not.toContain("audited");
  });

  test("bad input answers 400 naming the field; another account's asset and attester answer 404", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const w = wallet();
    const attester = await made(a, "POST", `/v1/vault/assets/${asset.id}/attesters`, { name: "C", roles: ["custodian"], wallet: w.address });
    await badInput(a, "POST", `/v1/vault/assets/${asset.id}/attesters`, [
      [{ roles: ["auditor"], wallet: w.address }, "name"],
      [{ name: "X", roles: [], wallet: w.address }, "roles"],
      [{ name: "X", roles: ["oracle"], wallet: w.address }, "roles.0"],
      [{ name: "X", roles: ["auditor"] }, "wallet"],
      [{ name: "X", roles: ["auditor"], wallet: "0x123" }, "wallet"],
    ]);
    const sig = await w.signMessage({ message: "x" });
    await badInput(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, [
      [{ statement: "s", signature: sig }, "attester_id"],
      [{ attester_id: attester.id, signature: sig }, "statement"],
      [{ attester_id: attester.id, statement: "", signature: sig }, "statement"],
      [{ attester_id: attester.id, statement: "x".repeat(8001), signature: sig }, "statement"],
      [{ attester_id: attester.id, statement: "s" }, "signature"],
      [{ attester_id: attester.id, statement: "s", signature: "0xdead" }, "signature"],
    ]);
    await sameAsUnknown(b, "POST", `/v1/vault/assets/${asset.id}/attesters`, "/v1/vault/assets/va_x/attesters", { name: "X", roles: ["auditor"], wallet: w.address });
    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}/attesters`, "/v1/vault/assets/va_x/attesters");
    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}/attestations`, "/v1/vault/assets/va_x/attestations");
    await sameAsUnknown(b, "POST", `/v1/vault/assets/${asset.id}/attestations`, "/v1/vault/assets/va_x/attestations", { attester_id: attester.id, statement: "s", signature: sig });
    const unknownAttester = await call(a, "POST", `/v1/vault/assets/${asset.id}/attestations`, { attester_id: "vatr_nope", statement: "s", signature: sig });
    expect(unknownAttester.status).toBe(404);
  });
});

describe("documents", () => {
  test("add (sealed at rest), list metadata ({documents, asset_id}), read the bytes back", async () => {
    const { a, b } = setUp();
    const asset = await newAsset(a);
    const bytes = Buffer.from("%PDF-1.7 deed of title, parcel 42\n");
    const added = await made(a, "POST", `/v1/vault/assets/${asset.id}/documents`, { name: "Deed", content_type: "application/pdf", content_b64: bytes.toString("base64") });
    expect(added).toMatchObject({ asset_id: asset.id, name: "Deed", content_type: "application/pdf", size_bytes: bytes.length, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") });
    const list = await call(a, "GET", `/v1/vault/assets/${asset.id}/documents`);
    expect(keys(list.body)).toEqual(["asset_id", "documents"]);
    expect(list.body.documents).toEqual([added]);
    const read = await call(a, "GET", `/v1/vault/assets/${asset.id}/documents/${added.id}`);
    expect(read.body).toEqual({ ...added, content_b64: bytes.toString("base64") });
    const row = h!.ctx.db.query<{ body_sealed: string }, []>("SELECT body_sealed FROM vault_documents").get()!;
    expect(row.body_sealed.startsWith("v1.")).toBe(true);
    expect(Buffer.from(row.body_sealed).includes(bytes)).toBe(false);

    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}/documents/${added.id}`, `/v1/vault/assets/va_x/documents/vdoc_x`);
    await sameAsUnknown(b, "GET", `/v1/vault/assets/${asset.id}/documents`, `/v1/vault/assets/va_x/documents`);
    await sameAsUnknown(b, "POST", `/v1/vault/assets/${asset.id}/documents`, `/v1/vault/assets/va_x/documents`, { name: "D", content_type: "text/plain", content_b64: "aGk=" });
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}/documents/vdoc_nope`)).status).toBe(404);
  });

  test("bad input answers 400 naming the field", async () => {
    const { a } = setUp();
    const asset = await newAsset(a);
    const base = { name: "D", content_type: "text/plain", content_b64: "aGk=" };
    await badInput(a, "POST", `/v1/vault/assets/${asset.id}/documents`, [
      [{ content_type: "text/plain", content_b64: "aGk=" }, "name"],
      [{ ...base, content_type: "plain" }, "content_type"],
      [{ ...base, content_type: "Text/Plain" }, "content_type"],
      [{ ...base, content_b64: "" }, "content_b64"],
      [{ ...base, content_b64: "not base64!" }, "content_b64"],
      [{ ...base, content_b64: "aGk" }, "content_b64"],
      [{ ...base, content_b64: Buffer.alloc(1_048_577).toString("base64") }, "content_b64"],
    ]);
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}/documents`)).body.documents).toEqual([]);
  });
});

test("session routes need a session: none answers 401", async () => {
  const { a } = setUp();
  const asset = await newAsset(a);
  for (const [method, path] of [
    ["GET", "/v1/vault/assets"],
    ["GET", `/v1/vault/assets/${asset.id}/holders`],
    ["GET", "/v1/vault/transfers"],
    ["GET", "/v1/vault/claims"],
  ] as const) {
    expect((await h!.json(method, path)).status).toBe(401);
  }
});
