/**
 * The public chain and its anchors: every change appends an entry; the test recomputes each
 * entry's hash from its canonical line with its own canonical JSON and SHA-256, follows the
 * prev_hash links from the genesis to the head, pages with before_seq, opens the amount
 * commitments with the owner's salts, and checks an anchored entry's inclusion proof (RFC 9162)
 * and svc's signed head with viem.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, test } from "bun:test";
import { type Hex, recoverMessageAddress } from "viem";
import { anchorPendingEntries, registerVaultJobs } from "../../../src/domains/vault/anchoring.ts";
import type { Harness } from "../../support/harness.ts";
import { call, keysOf, made, newAsset, newHolder, tenant, type Tenant, USD, vaultHarness, wallet } from "./vault-support.ts";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** The test's own canonical JSON: keys sorted by code point, no whitespace, integers only. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== "object") {
    if (typeof v === "number" && !Number.isSafeInteger(v)) throw new Error("not an integer");
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(",")}}`;
}

/** RFC 9162 §2.1.3.2: fold an audit path from a leaf hash and compare with the root. */
function verifyInclusion(leafHash: string, index: number, size: number, proof: string[], root: string): boolean {
  const node = (l: string, r: string) => sha256(Buffer.concat([Buffer.from([1]), Buffer.from(l, "hex"), Buffer.from(r, "hex")]));
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else r = node(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r === root;
}

/** An asset that has seen every kind of change. */
async function busyAsset(t: Tenant) {
  const asset = await newAsset(t);
  const ada = await newHolder(t, asset.id, { email: "ada@example.com", amount_micro_usd: 70 * USD });
  const bob = await newHolder(t, asset.id, { name: "Bob", amount_micro_usd: 30 * USD });
  await made(t, "POST", "/v1/vault/transfers", { asset_id: asset.id, from_holder_id: ada.id, to_holder_id: bob.id, amount_micro_usd: 5 * USD });
  await made(t, "POST", "/v1/vault/distributions", { asset_id: asset.id, amount_micro_usd: 1_000_001 });
  const auditor = wallet();
  const attester = await made(t, "POST", `/v1/vault/assets/${asset.id}/attesters`, { name: "Kline", roles: ["auditor"], wallet: auditor.address });
  const statement = "All units are held by the custodian.";
  await made(t, "POST", `/v1/vault/assets/${asset.id}/attestations`, {
    attester_id: attester.id,
    statement,
    signature: await auditor.signMessage({ message: `svc vault attestation\nasset: ${asset.id}\n\n${statement}` }),
  });
  await made(t, "POST", `/v1/vault/assets/${asset.id}/documents`, { name: "Deed", content_type: "text/plain", content_b64: Buffer.from("deed").toString("base64") });
  const grant = await made(t, "POST", `/v1/vault/assets/${asset.id}/view-grants`, { scopes: ["positions"] });
  await made(t, "DELETE", `/v1/vault/assets/${asset.id}/view-grants/${grant.id}`, undefined, 200);
  const claim = await made(t, "POST", `/v1/vault/assets/${asset.id}/holders/${ada.id}/claims`, {});
  const w = wallet();
  expect((await t.h.json("POST", `/v1/vault/claims/${claim.token}`, { body: { wallet: w.address, signature: await w.signMessage({ message: claim.message }) } })).status).toBe(200);
  return asset;
}

async function wholeChain(h: Harness, assetId: string, limit: number) {
  const entries = [];
  let before: number | null = null;
  for (let page = 0; page < 100; page++) {
    const r: { status: number; body: any } = await h.json("GET", `/v1/vault/chain/${assetId}?limit=${limit}${before ? `&before_seq=${before}` : ""}`);
    expect(r.status).toBe(200);
    entries.push(...r.body.entries);
    before = r.body.next_before_seq;
    if (before === null) return { head: r.body.head, entries };
  }
  throw new Error("the chain did not end");
}

describe("GET /v1/vault/chain/:id", () => {
  test("every change is one entry; the test recomputes each hash and follows the links from the genesis to the head", async () => {
    h = vaultHarness();
    const a = tenant(h);
    const asset = await busyAsset(a);
    const first = await h.json("GET", `/v1/vault/chain/${asset.id}`);
    expect(Object.keys(first.body).sort()).toEqual(["asset_id", "commitment_alg", "entries", "hash_alg", "head", "next_before_seq"]);
    expect(first.body.next_before_seq).toBeNull();
    const types = first.body.entries.map((e: { type: string }) => e.type).reverse();
    expect(types).toEqual([
      "asset_created",
      "holder_added",
      "issued",
      "holder_added",
      "issued",
      "transferred",
      "distributed",
      "attester_added",
      "attestation_recorded",
      "document_added",
      "grant_created",
      "grant_revoked",
      "claim_created",
      "claim_bound",
    ]);

    const { head, entries } = await wholeChain(h, asset.id, 3);
    expect(entries).toEqual(first.body.entries);
    const ascending = [...entries].reverse();
    let prev = "0".repeat(64);
    for (const [i, e] of ascending.entries()) {
      expect(e.seq).toBe(i + 1);
      expect(e.entry.seq).toBe(e.seq);
      expect(e.entry.asset_id).toBe(asset.id);
      expect(e.prev_hash).toBe(prev);
      const line = canonical({ entry: e.entry, prev_hash: e.prev_hash });
      expect(e.canonical).toBe(line);
      expect(e.hash).toBe(sha256(line));
      prev = e.hash;
    }
    expect(head).toEqual({ seq: ascending.length, hash: prev });
    expect((await call(a, "GET", `/v1/vault/assets/${asset.id}`)).body.chain_head).toEqual(head);

    // Amount-free and name-free: no amount field, no figure, no name, email or statement text.
    const text = JSON.stringify(entries);
    expect(keysOf(entries).filter((k) => /micro_usd|position|name|email|statement/.test(k))).toEqual([]);
    for (const secret of ["70000000", "5000000", "1000001", "ada@example.com", "Bob", "Kline", "custodian", "Deed"]) expect(text).not.toContain(secret);

    // The owner's records open the commitments: sha256(canonical {amount_micro_usd, salt}).
    const bySeq = new Map(ascending.map((e) => [e.seq, e.entry]));
    const moved = (await call(a, "GET", `/v1/vault/transfers?asset_id=${asset.id}`)).body.transfers;
    const dists = (await call(a, "GET", `/v1/vault/distributions?asset_id=${asset.id}`)).body.distributions;
    expect(moved).toHaveLength(3);
    for (const m of [...moved, ...dists]) {
      const opened = sha256(canonical({ amount_micro_usd: m.amount_micro_usd, salt: m.amount_salt }));
      expect(opened).toBe(m.amount_commitment);
      expect(bySeq.get(m.chain_seq)!.amount_commitment).toBe(opened);
    }
  });

  test("public, 404 for an unknown asset; before_seq and limit are checked", async () => {
    h = vaultHarness();
    const a = tenant(h);
    const asset = await newAsset(a);
    expect((await h.json("GET", "/v1/vault/chain/va_nope")).status).toBe(404);
    for (const [query, param] of [
      ["before_seq=0", "before_seq"],
      ["before_seq=abc", "before_seq"],
      ["limit=0", "limit"],
      ["limit=x", "limit"],
    ]) {
      const r = await h.json("GET", `/v1/vault/chain/${asset.id}?${query}`);
      expect({ query, status: r.status, param: r.body.error?.param }).toEqual({ query, status: 400, param });
    }
    const clamped = await h.json("GET", `/v1/vault/chain/${asset.id}?limit=100000&before_seq=1`);
    expect(clamped.body.entries).toEqual([]);
    expect(clamped.body.next_before_seq).toBeNull();
  });
});

describe("GET /v1/vault/anchors/:id", () => {
  test("pending until the anchoring pass; then the newest entry's inclusion proof folds to the root, which is anchored; the head is signed by svc", async () => {
    h = vaultHarness();
    const a = tenant(h);
    const asset = await busyAsset(a);
    const before = await h.json("GET", `/v1/vault/anchors/${asset.id}`);
    expect(before.status).toBe(200);
    expect(before.body.anchored).toBeNull();
    expect(before.body.pending_entries).toBe(before.body.head.seq);

    const other = await newAsset(a, { name: "Other" }); // another asset's entries share the root
    const batch = anchorPendingEntries(h.ctx)!;
    expect(batch.tree_size).toBe(before.body.head.seq + 1);

    const after = await h.json("GET", `/v1/vault/anchors/${asset.id}`);
    const at = after.body.anchored;
    expect(after.body.pending_entries).toBe(0);
    expect(at).toMatchObject({ seq: after.body.head.seq, hash: after.body.head.hash, state: "anchored", root: batch.root, tree_size: batch.tree_size });
    const leafHash = sha256(Buffer.concat([Buffer.from([0]), Buffer.from(at.hash, "ascii")]));
    expect(at.leaf_hash).toBe(leafHash);
    expect(verifyInclusion(leafHash, at.leaf_index, at.tree_size, at.proof, at.root)).toBe(true);
    expect(at.block.root).toBe(batch.root);
    expect(at.block.anchors.length).toBeGreaterThan(0);
    expect((await h.json("GET", `/v1/anchors/${batch.root}`)).status).toBe(200);

    // The head statement: svc's EIP-191 signature, recovered with viem.
    const pub = (await h.json("GET", "/v1/receipts/pubkey")).body;
    const s = after.body.head_statement;
    expect(await recoverMessageAddress({ message: s.statement, signature: s.signature as Hex })).toBe(pub.address);
    expect(JSON.parse(Buffer.from(s.statement, "base64url").toString("utf8"))).toMatchObject({ type: "vault-chain-head", asset_id: asset.id, seq: at.seq, hash: at.hash });

    // A later change waits for the next pass; the anchored entry stays the newest anchored one.
    await newHolder(a, asset.id, { name: "Late" });
    const later = await h.json("GET", `/v1/vault/anchors/${asset.id}`);
    expect(later.body.pending_entries).toBe(1);
    expect(later.body.anchored.seq).toBe(at.seq);
    expect(later.body.head.seq).toBe(at.seq + 1);
    expect((await h.json("GET", `/v1/vault/anchors/${other.id}`)).body.anchored.state).toBe("anchored");
    expect((await h.json("GET", "/v1/vault/anchors/va_nope")).status).toBe(404);
    // The recurring job (vault.anchor_interval_secs, 60 by default) makes the next pass.
    registerVaultJobs(h.ctx);
    h.clock.advance(60_000);
    await h.ctx.scheduler.runDue();
    expect((await h.json("GET", `/v1/vault/anchors/${asset.id}`)).body).toMatchObject({ pending_entries: 0, anchored: { seq: at.seq + 1, state: "anchored" } });
    expect(anchorPendingEntries(h.ctx)).toBeNull();
  });
});
