/**
 * The evidence area through its front door, as attestations, NAV, proof-of-backing and launches
 * use it: a stand-in custodian and price source on 127.0.0.1, and the devnet chain's TestUSDT for
 * on-chain supply. Every retrieval is the exact bytes answered, fingerprinted, kept sealed; every
 * failure is UNAVAILABLE with a reason that never carries the credential or the query string.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { ApiError } from "../../../src/core/errors.ts";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { evidenceBody, prepareSource, retrieve, scaledUnits, sourceView, unitsAsDecimal, patchSource } from "../../../src/domains/evidence/index.ts";
import { decimalText } from "../../../src/domains/evidence/figures.ts";
import { dropOldBodies } from "../../../src/domains/evidence/retention.ts";
import { type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { devnetChain } from "../pay/pay-support.ts";

let chain: Devnet;
let token: Address;
let h: Harness;
let accountId: string;
let answer: { status: number; body: string; delayMs?: number } = { status: 200, body: "{}" };
const seen: { auth: string | null; path: string }[] = [];
let custodian: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  chain = await startDevnet();
  token = await chain.deployToken();
  await chain.mint(token, chain.accounts[1]!, 1_234_500_000n);
  custodian = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      seen.push({ auth: req.headers.get("authorization"), path: new URL(req.url).pathname });
      if (answer.delayMs) await Bun.sleep(answer.delayMs);
      return new Response(answer.body, { status: answer.status, headers: { "content-type": "application/json" } });
    },
  });
  h = makeHarness({
    config: (c) => {
      devnetChain(chain, token)(c);
      c.webhooks.allow_private = true;
      c.evidence.timeout_ms = 1500;
      c.evidence.max_body_bytes = 4096;
    },
  });
  accountId = accountWithSession(h.ctx).account.id;
});
afterAll(async () => {
  custodian?.stop(true);
  await chain?.stop();
});

const url = (path = "/reserves") => `http://127.0.0.1:${custodian.port}${path}?api_key=SECRET-QUERY`;
const custodianSource = () => prepareSource(h.ctx, accountId, { kind: "custodian", url: url(), credential: "cust-token-123", pointer: "/reserves/usd", label: "Bank A" });

describe("HTTP sources", () => {
  test("a custodian answer is fingerprinted over its exact bytes, kept sealed, and its figure read exactly; the credential goes as a bearer token", async () => {
    answer = { status: 200, body: '{"reserves":{"usd":"1000000.125"}}' };
    const source = custodianSource();
    expect(source.source_ref).toBe(`http://127.0.0.1:${custodian.port}/reserves`);
    expect(JSON.stringify(source)).not.toContain("cust-token-123");
    expect(sourceView(source)).toEqual({ kind: "custodian", label: "Bank A", source_ref: source.source_ref, pointer: "/reserves/usd", chain: null, token: null, has_credential: true });
    const got = await retrieve(h.ctx, accountId, source);
    if (!got.ok) throw new Error(got.reason);
    expect(got.figure).toBe("1000000.125");
    expect(scaledUnits(got.figure!, 6)).toBe(1_000_000_125_000n);
    expect(got.reference.content_sha256).toBe(sha256Hex(answer.body));
    expect(seen.at(-1)!.auth).toBe("Bearer cust-token-123");
    const body = evidenceBody(h.ctx, accountId, got.reference.evidence_id)!;
    expect(body.bytes.toString("utf8")).toBe(answer.body);
    // Another account cannot read it; the stored row holds no plaintext.
    const other = accountWithSession(h.ctx).account.id;
    expect(evidenceBody(h.ctx, other, got.reference.evidence_id)).toBeNull();
    const row = h.ctx.db.query<{ body_sealed: string }, [string]>("SELECT body_sealed FROM evidence_retrievals WHERE id = ?").get(got.reference.evidence_id)!;
    expect(row.body_sealed).not.toContain("1000000.125");
  });

  test.each([
    ["down (HTTP 503)", { status: 503, body: "{}" }, "HTTP 503"],
    ["not JSON", { status: 200, body: "<html>" }, "not JSON"],
    ["no figure at the pointer", { status: 200, body: '{"reserves":{}}' }, "nothing at /reserves/usd"],
    ["an exponent smuggled in", { status: 200, body: '{"reserves":{"usd":"1e30"}}' }, "not a non-negative decimal"],
    ["a negative figure", { status: 200, body: '{"reserves":{"usd":-5}}' }, "not a non-negative decimal"],
    ["too large", { status: 200, body: `{"reserves":{"usd":1},"pad":"${"x".repeat(5000)}"}` }, "larger than 4096 bytes"],
    ["too slow", { status: 200, body: '{"reserves":{"usd":1}}', delayMs: 4000 }, "no answer within 1500 ms"],
  ])("%s → UNAVAILABLE, with a reason that names neither the credential nor the query", async (_name, a, reason) => {
    answer = a;
    const got = await retrieve(h.ctx, accountId, custodianSource());
    expect(got.ok).toBe(false);
    if (got.ok) return;
    expect(got.reason).toContain(reason);
    expect(got.reason).not.toContain("cust-token-123");
    expect(got.reason).not.toContain("SECRET-QUERY");
    expect(got.source_ref).not.toContain("SECRET-QUERY");
  });

  test("a closed port is UNAVAILABLE, never a figure", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = dead.port;
    dead.stop(true);
    const source = prepareSource(h.ctx, accountId, { kind: "price", url: `http://127.0.0.1:${port}/p`, pointer: "/price" });
    const got = await retrieve(h.ctx, accountId, source);
    expect(got).toMatchObject({ ok: false, reason: "the source could not be reached" });
  });

  test("an inline third-party document is its own evidence: sealed, fingerprinted, its pointer optional", async () => {
    const doc = JSON.stringify({ auditor: "Audit Co", reserves: 42 });
    const source = prepareSource(h.ctx, accountId, { kind: "third_party_attestation", document_b64: Buffer.from(doc).toString("base64"), pointer: "/reserves" });
    expect(source.source_ref).toBe(`document:sha256:${sha256Hex(doc)}`);
    expect(JSON.stringify(source)).not.toContain("Audit Co");
    const got = await retrieve(h.ctx, accountId, source);
    expect(got).toMatchObject({ ok: true, figure: "42", reference: { content_sha256: sha256Hex(doc) } });
  });

  test("patching a source re-checks it and keeps the credential unless a new one is given", async () => {
    const source = custodianSource();
    const moved = patchSource(h.ctx, accountId, source, { url: url("/v2/reserves") });
    expect(moved.source_ref).toEndWith("/v2/reserves");
    expect(moved.credential_sealed).toBe(source.credential_sealed);
    expect(() => patchSource(h.ctx, accountId, source, { pointer: "reserves" })).toThrow(ApiError);
  });
});

describe("retention", () => {
  test("bytes older than evidence.body_retention_days are dropped; the reference and fingerprint stay", async () => {
    answer = { status: 200, body: '{"reserves":{"usd":"5"}}' };
    const old = await retrieve(h.ctx, accountId, custodianSource());
    if (!old.ok) throw new Error(old.reason);
    h.clock.advance(89 * 86_400_000);
    const fresh = await retrieve(h.ctx, accountId, custodianSource());
    if (!fresh.ok) throw new Error(fresh.reason);
    h.clock.advance(2 * 86_400_000);
    expect(dropOldBodies(h.ctx)).toBeGreaterThan(0);
    expect(evidenceBody(h.ctx, accountId, old.reference.evidence_id)).toBeNull();
    expect(evidenceBody(h.ctx, accountId, fresh.reference.evidence_id)!.bytes.toString()).toBe(answer.body);
    const row = h.ctx.db.query<{ content_sha256: string }, [string]>("SELECT content_sha256 FROM evidence_retrievals WHERE id = ?").get(old.reference.evidence_id)!;
    expect(row.content_sha256).toBe(old.reference.content_sha256);
    h.ctx.config.evidence.body_retention_days = 0;
    h.clock.advance(365 * 86_400_000);
    expect(dropOldBodies(h.ctx)).toBe(0);
    h.ctx.config.evidence.body_retention_days = 90;
  });
});

describe("on-chain supply", () => {
  test("an ERC-20's totalSupply and decimals at the head, as a fingerprinted statement of chain, token and block", async () => {
    const source = prepareSource(h.ctx, accountId, { kind: "erc20_supply", chain: "devnet", token });
    expect(source.source_ref).toBe(`erc20:devnet:${token.toLowerCase()}`);
    const got = await retrieve(h.ctx, accountId, source);
    if (!got.ok) throw new Error(got.reason);
    expect(got.figure).toBe(unitsAsDecimal(1_234_500_000n, 6));
    expect(got.figure).toBe("1234.5");
    expect(got.json).toMatchObject({ chain: "devnet", chain_id: 31337, total_supply_units: "1234500000", decimals: 6 });
  });

  test("a contract that is not an ERC-20 is UNAVAILABLE", async () => {
    const source = prepareSource(h.ctx, accountId, { kind: "erc20_supply", chain: "devnet", token: chain.accounts[2]! });
    const got = await retrieve(h.ctx, accountId, source);
    expect(got.ok).toBe(false);
  });
});

describe("naming a source", () => {
  test.each([
    [{ kind: "custodian", pointer: "/a" }, "source.url", "is required"],
    [{ kind: "custodian", url: "http://x.test/a" }, "source.pointer", "is required"],
    [{ kind: "custodian", url: "ftp://x.test/a", pointer: "/a" }, "source.url", "http"],
    [{ kind: "custodian", url: "http://u:p@x.test/a", pointer: "/a" }, "source.url", "user name"],
    [{ kind: "price", url: "http://x.test/a", pointer: "a" }, "source.pointer", "JSON pointer"],
    [{ kind: "third_party_attestation" }, "source.url", "is required"],
    [{ kind: "third_party_attestation", url: "http://x.test/a", document_b64: "eA==" }, "source.document_b64", "not both"],
    [{ kind: "third_party_attestation", document_b64: "not base64!" }, "source.document_b64", "base64"],
    [{ kind: "erc20_supply", token: "0x0000000000000000000000000000000000000001" }, "source.chain", "is required"],
    [{ kind: "erc20_supply", chain: "mainnet", token: "0x0000000000000000000000000000000000000001" }, "source.chain", "unknown chain"],
  ] as const)("%j → 400 naming %s", (input, field, reason) => {
    let err: unknown;
    try {
      prepareSource(h.ctx, accountId, input as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toContain(reason);
    expect(JSON.stringify((err as ApiError).extra ?? {}) + (err as ApiError).message).toContain(field);
  });

  test.each([
    [1.5, "1.5"],
    ["0012.500", "12.5"],
    ["7", "7"],
    [2 ** 60, null],
    ["1.2.3", null],
    [true, null],
  ])("decimal text of %p is %p", (value, text) => {
    expect(decimalText(value)).toBe(text);
  });
});
