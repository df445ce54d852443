/**
 * Receipts: a fixed vector (canonical JSON → base64url → EIP-191) checked against viem; over
 * HTTP, receipts minted by every settle, verified with an independent library (viem) and the
 * decoding written here (not src/), POST /v1/receipts/verify on good, tampered and
 * malformed input, the owner's view, sharing, the public shared view and badge (with 404
 * uniformity), route precedence, the x-svc- response headers, and `svc receipts verify`
 * through the compiled binary.
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { hexToBytes } from "@noble/hashes/utils.js";
import { hashMessage, recoverMessageAddress, verifyMessage } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { canonicalJson } from "../../../src/core/canonical-json.ts";
import { Signer } from "../../../src/core/signer.ts";
import { signStatement } from "../../../src/core/statements.ts";
import { guards } from "../../../src/guards.ts";
import { setReceiptHeaders } from "../../../src/domains/receipts/headers.ts";
import { runSvc, svcBinary } from "../../support/binary.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness, tempDir } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Hex = `0x${string}`;

// --- Independent of src/: how a third party reads a receipt. ---------------------------------

const decode = (receipt: string) => JSON.parse(Buffer.from(receipt, "base64url").toString("utf8")) as Record<string, any>;
const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
/** Canonical JSON for the ASCII keys receipts use: sorted keys, no whitespace. */
const canonical = (v: unknown): string =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(",")}]`
      : `{${Object.keys(v as object)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(",")}}`;
const recover = async (receipt: string, signature: string): Promise<string> => recoverMessageAddress({ message: receipt, signature: signature as Hex });

// --- Fixtures ----------------------------------------------------------------------------------

function owner() {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 100_000_000, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

/** A metered action settled through the meter, as every billable route does it. */
function settle(accountId: string, opts: { keyId?: string | null; kind?: string; cost?: number; runId?: string | null } = {}) {
  const r = h.ctx.meter.reserve({ accountId, keyId: opts.keyId ?? null, amount: Math.max(1_000_000, opts.cost ?? 0), kind: opts.kind ?? "inference", resource: "gpt-test", resourceType: "model", runId: opts.runId ?? null });
  const s = h.ctx.meter.settle(r, opts.cost ?? 750, { units: { input_tokens: 12, output_tokens: 34, finish_reason: "stop" } });
  return s.receipt!;
}

const verifyBody = (body: unknown) => h.json("POST", "/v1/receipts/verify", { body });

describe("a fixed vector (docs/receipts.md)", () => {
  const KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
  const PAYLOAD = {
    v: 1, type: "receipt", id: "rcpt_example", kind: "inference", status: "succeeded", account: "acct_example", key_id: "key_example",
    resource: "gpt-4o-mini", run_id: null, cost_micro_usd: 1234, reserved_micro_usd: 50000, units: { input_tokens: 1850, output_tokens: 412 },
    usage_event_id: "use_example", reserved_at: "2026-11-21T12:00:00.000Z", settled_at: "2026-11-21T12:00:01.250Z",
  };
  const CANONICAL =
    '{"account":"acct_example","cost_micro_usd":1234,"id":"rcpt_example","key_id":"key_example","kind":"inference","reserved_at":"2026-11-21T12:00:00.000Z","reserved_micro_usd":50000,"resource":"gpt-4o-mini","run_id":null,"settled_at":"2026-11-21T12:00:01.250Z","status":"succeeded","type":"receipt","units":{"input_tokens":1850,"output_tokens":412},"usage_event_id":"use_example","v":1}';
  const RECEIPT =
    "eyJhY2NvdW50IjoiYWNjdF9leGFtcGxlIiwiY29zdF9taWNyb191c2QiOjEyMzQsImlkIjoicmNwdF9leGFtcGxlIiwia2V5X2lkIjoia2V5X2V4YW1wbGUiLCJraW5kIjoiaW5mZXJlbmNlIiwicmVzZXJ2ZWRfYXQiOiIyMDI2LTExLTIxVDEyOjAwOjAwLjAwMFoiLCJyZXNlcnZlZF9taWNyb191c2QiOjUwMDAwLCJyZXNvdXJjZSI6ImdwdC00by1taW5pIiwicnVuX2lkIjpudWxsLCJzZXR0bGVkX2F0IjoiMjAyNi0xMS0yMVQxMjowMDowMS4yNTBaIiwic3RhdHVzIjoic3VjY2VlZGVkIiwidHlwZSI6InJlY2VpcHQiLCJ1bml0cyI6eyJpbnB1dF90b2tlbnMiOjE4NTAsIm91dHB1dF90b2tlbnMiOjQxMn0sInVzYWdlX2V2ZW50X2lkIjoidXNlX2V4YW1wbGUiLCJ2IjoxfQ";
  const DIGEST = "0x9d0d38415832b69549475f3875a4f1ce512027116e846c9421a9269de46480ed";
  const SIGNATURE = "0xc6bac2116d9d15f4ac300da5f1fcd835708435de8e5b15328aef6d547b1abb4c73b9902688ba09ce7cb09eec69cd5a6f471a552eb213315767470a4c073ba4161b";
  const ADDRESS = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23";

  test("canonical JSON, base64url, digest and signature agree with viem and with svc's signer", async () => {
    expect(canonical(PAYLOAD)).toBe(CANONICAL);
    expect(canonicalJson(PAYLOAD)).toBe(CANONICAL);
    expect(Buffer.from(CANONICAL, "utf8").toString("base64url")).toBe(RECEIPT);
    expect(hashMessage(RECEIPT)).toBe(DIGEST);
    const account = privateKeyToAccount(KEY);
    expect(account.address).toBe(ADDRESS);
    expect(await account.signMessage({ message: RECEIPT })).toBe(SIGNATURE); // RFC 6979: deterministic
    expect(signStatement(new Signer(hexToBytes(KEY.slice(2))), PAYLOAD)).toEqual({ statement: RECEIPT, signature: SIGNATURE, signer: ADDRESS });
    expect(await recover(RECEIPT, SIGNATURE)).toBe(ADDRESS);
  });

  test("the documentation shows the same values", () => {
    const doc = readFileSync(join(import.meta.dir, "../../../docs/receipts.md"), "utf8");
    for (const value of [KEY, ADDRESS, CANONICAL, RECEIPT, DIGEST, SIGNATURE]) expect(doc).toContain(value);
  });
});

describe("minted receipts verify with an independent library", () => {
  test("a settle mints a signed, metadata-only receipt: viem recovers the published signer; the payload is canonical JSON", async () => {
    h = makeHarness();
    const { accountId } = owner();
    const key = apiKeyFor(h.ctx, accountId);
    const rc = settle(accountId, { keyId: key.id, runId: "run_alpha" });

    const pub = await h.json("GET", "/v1/receipts/pubkey");
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ scheme: "eip191-personal-sign", algorithm: "secp256k1", encoding: "base64url(canonical JSON)" });
    expect(pub.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(pub.body.signers).toEqual([{ address: pub.body.address, valid_from: expect.any(String), valid_until: null }]);

    expect(await recover(rc.receipt, rc.signature)).toBe(pub.body.address);
    expect(await verifyMessage({ address: pub.body.address, message: rc.receipt, signature: rc.signature as Hex })).toBe(true);
    expect(rc.signer).toBe(pub.body.address);
    expect(rc.signature).toMatch(/^0x[0-9a-f]{130}$/);

    const json = Buffer.from(rc.receipt, "base64url").toString("utf8");
    const payload = decode(rc.receipt);
    expect(json).toBe(canonical(payload)); // sorted keys, no whitespace
    expect(payload).toEqual({
      v: 1,
      type: "receipt",
      id: rc.id,
      kind: "inference",
      status: "succeeded",
      account: accountId,
      key_id: key.id,
      resource: "gpt-test",
      run_id: "run_alpha",
      cost_micro_usd: 750,
      reserved_micro_usd: 1_000_000,
      units: { input_tokens: 12, output_tokens: 34, finish_reason: "stop" },
      usage_event_id: expect.stringMatching(/^use_/),
      reserved_at: "2026-11-21T12:00:00.000Z",
      settled_at: "2026-11-21T12:00:00.000Z",
    });
    for (const k of ["prompt", "completion", "messages", "content", "input", "output", "code"]) expect(payload).not.toHaveProperty(k);

    // receipt_minted is queued with the receipt in settle's transaction (spec §6).
    const events = h.ctx.outbox.since(0).filter((e) => e.type === "receipt_minted");
    expect(events).toHaveLength(1);
    expect(events[0]!.account_id).toBe(accountId);
    expect(events[0]!.payload).toMatchObject({ receipt: rc.receipt, signature: rc.signature, signer: rc.signer, kind: "inference", status: "succeeded", cost_micro_usd: 750 });
    // The row itself keeps only the receipt's key: the signed receipt is not stored twice.
    const stored = JSON.parse(h.ctx.db.query<{ payload: string }, [string]>("SELECT payload FROM outbox_events WHERE id = ?").get(events[0]!.id)!.payload);
    expect(stored).toEqual({ receipt_id: rc.id, kind: "inference", status: "succeeded", cost_micro_usd: 750 });
  });

  test("POST /v1/receipts/verify: a genuine receipt is valid, with the signer", async () => {
    h = makeHarness();
    const rc = settle(owner().accountId);
    const r = await verifyBody({ receipt: rc.receipt, signature: rc.signature });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      valid: true,
      recovered_address: rc.signer,
      payload: decode(rc.receipt),
      signer: { address: rc.signer, valid_from: expect.any(String), valid_until: null, current: true },
    });
  });

  test("tampered payloads, swapped signatures and another signer's signature are refused", async () => {
    h = makeHarness();
    const { accountId } = owner();
    const a = settle(accountId, { cost: 750 });
    const b = settle(accountId, { cost: 900 });

    // Tampered: the payload says it cost less. Re-encoded canonically, the old signature no longer fits.
    const cheaper = Buffer.from(canonical({ ...decode(a.receipt), cost_micro_usd: 1 })).toString("base64url");
    const tampered = await verifyBody({ receipt: cheaper, signature: a.signature });
    expect(tampered.body).toMatchObject({ valid: false, reason: expect.stringContaining("not this service's signer") });
    expect(tampered.body.recovered_address).not.toBe(a.signer);
    expect(tampered.body.recovered_address).toBe(await recover(cheaper, a.signature));
    expect(tampered.body.payload.cost_micro_usd).toBe(1); // shown, but not vouched for

    // One character of the receipt string changed (no re-encoding).
    const flipped = a.receipt.slice(0, 10) + (a.receipt[10] === "A" ? "B" : "A") + a.receipt.slice(11);
    expect((await verifyBody({ receipt: flipped, signature: a.signature })).body.valid).toBe(false);

    // Swapped: b's genuine signature on a's genuine receipt.
    const swapped = await verifyBody({ receipt: a.receipt, signature: b.signature });
    expect(swapped.body).toMatchObject({ valid: false });
    expect(swapped.body.recovered_address).not.toBe(a.signer);

    // Another signer: a valid EIP-191 signature by a key that is not svc's.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const foreign = await stranger.signMessage({ message: a.receipt });
    const other = await verifyBody({ receipt: a.receipt, signature: foreign });
    expect(other.body).toMatchObject({ valid: false, recovered_address: stranger.address, reason: expect.stringContaining("not this service's signer") });

    // The v byte flipped (27 ↔ 28) recovers another key.
    const v = a.signature.slice(-2) === "1b" ? "1c" : "1b";
    expect((await verifyBody({ receipt: a.receipt, signature: a.signature.slice(0, -2) + v })).body.valid).toBe(false);
  });

  test("malformed input is an answer (200, valid:false, reason, nulls), never a 500 or a 400", async () => {
    h = makeHarness();
    const rc = settle(owner().accountId);
    const cases: unknown[] = [
      {},
      { receipt: rc.receipt },
      { signature: rc.signature },
      { receipt: null, signature: null },
      { receipt: 42, signature: rc.signature },
      { receipt: rc.receipt, signature: 42 },
      { receipt: ["x"], signature: { a: 1 } },
      { receipt: "", signature: rc.signature },
      { receipt: "not base64url!", signature: rc.signature },
      { receipt: "eyJh=", signature: rc.signature },
      { receipt: Buffer.from("not json").toString("base64url"), signature: rc.signature },
      { receipt: Buffer.from("[1,2]").toString("base64url"), signature: rc.signature },
      { receipt: Buffer.from('"str"').toString("base64url"), signature: rc.signature },
      { receipt: rc.receipt, signature: "0x" },
      { receipt: rc.receipt, signature: "0xzz" + rc.signature.slice(4) },
      { receipt: rc.receipt, signature: rc.signature.slice(0, -2) },
      { receipt: rc.receipt, signature: rc.signature + "00" },
      { receipt: rc.receipt, signature: "0x" + "00".repeat(65) },
      { receipt: rc.receipt, signature: "0x" + "ff".repeat(64) + "1b" },
      { receipt: rc.receipt, signature: rc.signature.slice(0, -2) + "05" },
      { receipt: "A".repeat(70_000), signature: rc.signature },
      [rc.receipt, rc.signature],
      "just a string",
      17,
      null,
    ];
    for (const body of cases) {
      const r = await verifyBody(body);
      expect({ body, status: r.status }).toEqual({ body, status: 200 });
      expect(r.body).toEqual({ valid: false, reason: expect.any(String), recovered_address: null, payload: null });
    }
    // No body at all, and a text body: answers too.
    const empty = await h.json("POST", "/v1/receipts/verify");
    expect(empty.status).toBe(200);
    expect(empty.body.valid).toBe(false);
    const text = await h.json("POST", "/v1/receipts/verify", { raw: "receipt=x", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(200);
    expect(text.body.valid).toBe(false);
    // A body that claims JSON and is not: the app-wide 400 invalid_json (docs/receipts.md).
    const broken = await h.json("POST", "/v1/receipts/verify", { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.type).toBe("invalid_json");
  });
});

describe("the owner's receipts and sharing", () => {
  test("GET /v1/receipts/:id: the owner's receipt with its decoded payload; other accounts and unknown ids get the same 404", async () => {
    h = makeHarness();
    const me = owner();
    const rc = settle(me.accountId, { runId: "run_1" });
    const r = await h.json("GET", `/v1/receipts/${rc.id}`, { headers: me.auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: rc.id,
      kind: "inference",
      status: "succeeded",
      cost_micro_usd: 750,
      run_id: "run_1",
      key_id: null,
      created_at: "2026-11-21T12:00:00.000Z",
      receipt: rc.receipt,
      signature: rc.signature,
      signer: rc.signer,
      shared: false,
      shared_at: null,
      share_url: null,
      badge_url: null,
      payload: decode(rc.receipt),
    });

    const other = owner();
    const theirs = await h.json("GET", `/v1/receipts/${rc.id}`, { headers: other.auth });
    const unknown = await h.json("GET", "/v1/receipts/rcpt_doesnotexist", { headers: me.auth });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expect(unknown.body.error.type).toBe("not_found");

    expect((await h.json("GET", `/v1/receipts/${rc.id}`)).status).toBe(401);
    const key = apiKeyFor(h.ctx, me.accountId);
    const withKey = await h.json("GET", `/v1/receipts/${rc.id}`, { headers: bearer(key.token) });
    expect(withKey.status).toBe(401);
    expect(withKey.body.error.type).toBe("wrong_credential_class");
  });

  test("share and unshare are idempotent; the shared view and badge exist only while shared, 404 identical to unknown", async () => {
    h = makeHarness();
    const me = owner();
    const rc = settle(me.accountId, { cost: 750 });
    const base = h.ctx.config.public_url;

    const unknownShared = await h.request("GET", "/v1/receipts/shared/rcpt_doesnotexist");
    const unknownBody = await unknownShared.text();
    expect(unknownShared.status).toBe(404);
    const notYet = await h.request("GET", `/v1/receipts/shared/${rc.id}`);
    expect(notYet.status).toBe(404);
    expect(await notYet.text()).toBe(unknownBody);

    const shared = await h.json("POST", `/v1/receipts/${rc.id}/share`, { headers: me.auth });
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({
      id: rc.id,
      shared: true,
      shared_at: "2026-11-21T12:00:00.000Z",
      share_url: `${base}/v1/receipts/shared/${rc.id}`,
      badge_url: `${base}/v1/receipts/${rc.id}/badge.svg`,
    });
    h.clock.advance(60_000);
    const again = await h.json("POST", `/v1/receipts/${rc.id}/share`, { headers: me.auth });
    expect(again.body.shared_at).toBe(shared.body.shared_at); // the first sharing time is kept

    const pub = await h.json("GET", `/v1/receipts/shared/${rc.id}`);
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ id: rc.id, kind: "inference", status: "succeeded", cost_micro_usd: 750, receipt: rc.receipt, signature: rc.signature, signer: rc.signer, badge_url: `${base}/v1/receipts/${rc.id}/badge.svg` });
    expect(pub.body.payload).toEqual(decode(rc.receipt));
    expect(pub.body.verify).toContain("/v1/receipts/verify");
    expect(await recover(pub.body.receipt, pub.body.signature)).toBe(rc.signer);

    const badge = await h.request("GET", `/v1/receipts/${rc.id}/badge.svg`);
    expect(badge.status).toBe(200);
    expect(badge.headers.get("content-type")).toStartWith("image/svg+xml");
    const svg = await badge.text();
    expect(svg).toStartWith("<svg ");
    expect(svg).toContain("inference · verified · $0.00075");

    // Another account can neither share nor unshare it.
    const other = owner();
    expect((await h.json("DELETE", `/v1/receipts/${rc.id}/share`, { headers: other.auth })).status).toBe(404);
    expect((await h.json("POST", `/v1/receipts/rcpt_nope/share`, { headers: me.auth })).status).toBe(404);

    const off = await h.json("DELETE", `/v1/receipts/${rc.id}/share`, { headers: me.auth });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: rc.id, shared: false, shared_at: null, share_url: null, badge_url: null });
    expect((await h.json("DELETE", `/v1/receipts/${rc.id}/share`, { headers: me.auth })).status).toBe(200);

    const gone = await h.request("GET", `/v1/receipts/shared/${rc.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe(unknownBody);
    const goneBadge = await h.request("GET", `/v1/receipts/${rc.id}/badge.svg`);
    const unknownBadge = await h.request("GET", "/v1/receipts/rcpt_doesnotexist/badge.svg");
    expect(goneBadge.status).toBe(404);
    expect(unknownBadge.status).toBe(404);
    expect(await goneBadge.text()).toBe(await unknownBadge.text());
    expect((await h.json("GET", `/v1/receipts/${rc.id}`, { headers: me.auth })).body.shared).toBe(false);
  });

  test("the badge escapes its text and says unverified when the stored receipt no longer verifies", async () => {
    h = makeHarness();
    const me = owner();
    const rc = settle(me.accountId, { kind: `<script>alert("x")</script>&'`, cost: 1_500_000 });
    await h.json("POST", `/v1/receipts/${rc.id}/share`, { headers: me.auth });
    const svg = await (await h.request("GET", `/v1/receipts/${rc.id}/badge.svg`)).text();
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    expect(svg).toContain("verified · $1.50");
    // Every element opened is closed: the text cannot have broken out of its <text>.
    expect(svg.match(/<text /g)!.length).toBe(2);
    expect(svg.match(/<\/text>/g)!.length).toBe(2);

    // A stored signature that does not fit its receipt: the badge does not vouch for it.
    const other = settle(me.accountId);
    h.ctx.db.query("UPDATE receipts SET signature = ? WHERE id = ?").run(other.signature, rc.id);
    const bad = await (await h.request("GET", `/v1/receipts/${rc.id}/badge.svg`)).text();
    expect(bad).toContain("· unverified ·");
    expect(bad).not.toContain("· verified ·");
  });

  test("literal segments win over templates (spec §9.3)", async () => {
    h = makeHarness();
    const me = owner();
    const rc = settle(me.accountId);
    await h.json("POST", `/v1/receipts/${rc.id}/share`, { headers: me.auth });

    // /pubkey and /verify are public literals, not GET /:id (which would want a session).
    expect((await h.json("GET", "/v1/receipts/pubkey")).body.scheme).toBe("eip191-personal-sign");
    expect((await h.json("GET", "/v1/receipts/pubkey", { headers: me.auth })).body.scheme).toBe("eip191-personal-sign");
    expect((await verifyBody({ receipt: rc.receipt, signature: rc.signature })).body.valid).toBe(true);
    // /shared/:id is the public lookup, not /:id/share with id "shared".
    const shared = await h.json("GET", `/v1/receipts/shared/${rc.id}`);
    expect(shared.status).toBe(200);
    expect(shared.body.id).toBe(rc.id);
    // …while /:id/share still needs the owner's session, and /:id is the owner's route.
    expect((await h.json("POST", `/v1/receipts/${rc.id}/share`)).status).toBe(401);
    expect((await h.json("DELETE", `/v1/receipts/${rc.id}/share`)).status).toBe(401);
    expect((await h.json("GET", `/v1/receipts/${rc.id}`, { headers: me.auth })).body.receipt).toBe(rc.receipt);
    expect((await h.json("GET", `/v1/receipts/${rc.id}`)).status).toBe(401);
  });

  test("every receipt route is in the OpenAPI document", async () => {
    h = makeHarness();
    const doc = (await h.json("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/receipts/pubkey"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/receipts/verify"])).toEqual(["post"]);
    expect(doc.paths["/v1/receipts/verify"].post.requestBody.content["application/json"].schema.required).toEqual(["receipt", "signature"]);
    expect(Object.keys(doc.paths["/v1/receipts/shared/{id}"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/receipts/{id}/badge.svg"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/receipts/{id}"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/v1/receipts/{id}/share"]).sort()).toEqual(["delete", "post"]);
  });
});

describe("x-svc- response headers", () => {
  test("a billable route sets the receipt headers from its settlement; they verify with viem", async () => {
    h = makeHarness();
    const { accountId } = owner();
    const key = apiKeyFor(h.ctx, accountId);
    const ctx = h.ctx;
    // A stand-in for a billable route (none exists yet): reserve, work, settle, headers.
    const probe = new Elysia().use(guards.apiKey(ctx)).post("/probe", ({ principal, set, body }) => {
      const runId = (body as { run?: string } | undefined)?.run ?? null;
      const r = ctx.meter.reserve({ accountId: principal.accountId, keyId: principal.keyId, amount: 5_000, kind: "probe", runId });
      const s = ctx.meter.settle(r, 1_234, { units: { calls: 1 } });
      setReceiptHeaders(set, s, r);
      return { ok: true };
    });
    const call = (body: unknown) =>
      probe.handle(new Request("http://svc.test/probe", { method: "POST", headers: { ...bearer(key.token), "content-type": "application/json" }, body: JSON.stringify(body) }));

    const res = await call({ run: "run_7" });
    expect(res.status).toBe(200);
    const hd = Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("x-svc-")));
    expect(Object.keys(hd).sort()).toEqual(["x-svc-cost-micro-usd", "x-svc-receipt", "x-svc-receipt-id", "x-svc-receipt-signature", "x-svc-receipt-signer", "x-svc-run-id"]);
    expect(hd["x-svc-cost-micro-usd"]).toBe("1234");
    expect(hd["x-svc-run-id"]).toBe("run_7");
    expect(await recover(hd["x-svc-receipt"]!, hd["x-svc-receipt-signature"]!)).toBe(hd["x-svc-receipt-signer"]!);
    expect(hd["x-svc-receipt-signer"]).toBe((await h.json("GET", "/v1/receipts/pubkey")).body.address);
    expect(decode(hd["x-svc-receipt"]!)).toMatchObject({ id: hd["x-svc-receipt-id"], kind: "probe", cost_micro_usd: 1234, run_id: "run_7", key_id: key.id });
    expect((await verifyBody({ receipt: hd["x-svc-receipt"], signature: hd["x-svc-receipt-signature"] })).body.valid).toBe(true);

    // No run: no run header. A run id with a line break or non-ASCII is percent-encoded, not a broken response.
    expect((await call({})).headers.has("x-svc-run-id")).toBe(false);
    const odd = await call({ run: "run\r\nx-evil: 1 ünï" });
    expect(odd.status).toBe(200);
    expect(odd.headers.get("x-svc-run-id")).toBe(encodeURIComponent("run\r\nx-evil: 1 ünï"));
    expect(odd.headers.has("x-evil")).toBe(false);
  });
});

describe("svc receipts verify (compiled binary)", () => {
  beforeAll(async () => {
    await svcBinary();
  }, 120_000);

  test("valid and tampered receipts, from a file and from stdin; with and without a data dir", async () => {
    const dir = tempDir();
    h = makeHarness({ dir });
    const rc = settle(owner().accountId);
    const good = JSON.stringify({ receipt: rc.receipt, signature: rc.signature });
    const cheaper = encode({ ...decode(rc.receipt), cost_micro_usd: 1 });
    const bad = JSON.stringify({ receipt: cheaper, signature: rc.signature, signer: rc.signer });
    const file = join(tempDir(), "receipt.json");
    writeFileSync(file, good);

    const fromFile = await runSvc(["receipts", "verify", file, "--data-dir", dir]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain("valid:      yes");
    expect(fromFile.stdout).toContain(`recovered:  ${rc.signer}`);
    expect(fromFile.stdout).toContain("this deployment's current signer");
    expect(fromFile.stdout).toContain(`"id": "${rc.id}"`);

    const tampered = await runSvc(["receipts", "verify", "-", "--data-dir", dir], { stdin: bad });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain("valid:      no");
    expect(tampered.stdout).toContain('"cost_micro_usd": 1');

    // The receipt_minted payload as a webhook delivers it, from stdin, as JSON.
    const event = h.ctx.outbox.since(0).find((e) => e.type === "receipt_minted")!;
    const fromEvent = await runSvc(["receipts", "verify", "-", "--json", "--data-dir", dir], { stdin: JSON.stringify({ type: "receipt_minted", data: event.payload }) });
    expect(fromEvent.code).toBe(0);
    expect(JSON.parse(fromEvent.stdout)).toMatchObject({ valid: true, recovered_address: rc.signer, signer_check: "deployment", payload: { id: rc.id } });

    // No data dir (a fresh cwd): prints what it recovered, says the signer list was not checked, exit 1.
    const bare = await runSvc(["receipts", "verify", "-"], { stdin: JSON.stringify({ ...JSON.parse(good), signer: rc.signer }) });
    expect(bare.code).toBe(1);
    expect(bare.stdout).toContain(`recovered:  ${rc.signer}`);
    expect(bare.stdout).toContain("signer list could not be checked");
    expect(bare.stdout).toContain("it matches the signer the input names");
    expect(bare.stdout).toContain(`"id": "${rc.id}"`);
    const bareBad = await runSvc(["receipts", "verify", "-"], { stdin: bad });
    expect(bareBad.code).toBe(1);
    expect(bareBad.stdout).toContain("does NOT match the signer the input names");

    // --signer: a third party's trust anchor, without any data dir.
    expect((await runSvc(["receipts", "verify", file, "--signer", rc.signer])).code).toBe(0);
    expect((await runSvc(["receipts", "verify", file, "--signer", privateKeyToAccount(generatePrivateKey()).address])).code).toBe(1);
    expect((await runSvc(["receipts", "verify", file, "--signer", "0xnope"])).code).toBe(2);

    // Not JSON, or no such file.
    const junk = await runSvc(["receipts", "verify", "-", "--data-dir", dir], { stdin: "not json" });
    expect(junk.code).toBe(1);
    expect(junk.stdout).toContain("input is not JSON");
    expect((await runSvc(["receipts", "verify", join(dir, "missing.json"), "--data-dir", dir])).code).toBe(1);
  });
});

describe("GET /v1/receipts (the owner's list)", () => {
  test("newest first, paged by next_cursor, filtered by kind; another tenant's never listed; a foreign cursor answers 400", async () => {
    h = makeHarness();
    const me = owner();
    const other = owner();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(settle(me.accountId, { kind: i % 2 ? "sandbox" : "inference", cost: 100 + i }).id);
    settle(other.accountId);

    const first = await h.json("GET", "/v1/receipts?limit=2", { headers: me.auth });
    expect(first.status).toBe(200);
    expect(first.body.receipts.map((r: { id: string }) => r.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.receipts[0].payload.cost_micro_usd).toBe(104);
    const second = await h.json("GET", `/v1/receipts?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { headers: me.auth });
    expect(second.body.receipts.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const last = await h.json("GET", `/v1/receipts?limit=2&cursor=${encodeURIComponent(second.body.next_cursor)}`, { headers: me.auth });
    expect(last.body.receipts.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect(last.body.next_cursor).toBeNull();

    const sandbox = await h.json("GET", "/v1/receipts?kind=sandbox", { headers: me.auth });
    expect(sandbox.body.receipts.map((r: { id: string }) => r.id)).toEqual([ids[3], ids[1]]);
    expect((await h.json("GET", `/v1/receipts?cursor=${encodeURIComponent(first.body.next_cursor)}`, { headers: other.auth })).status).toBe(400);
    expect((await h.json("GET", `/v1/receipts?kind=sandbox&cursor=${encodeURIComponent(first.body.next_cursor)}`, { headers: me.auth })).status).toBe(400);
    expect((await h.json("GET", "/v1/receipts?limit=0", { headers: me.auth })).body.error.param).toBe("limit");
    expect((await h.json("GET", "/v1/receipts", { headers: other.auth })).body.receipts).toHaveLength(1);
  });
});
