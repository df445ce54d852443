/**
 * Issues 26-28 from outside, as their users meet them: the compiled binary (`svc setup`, `svc
 * chains add`, `svc serve`), wallets made and signed with viem, the devnet chain, stand-in
 * custodian and seller servers on 127.0.0.1, and nothing but HTTP between them.
 *
 * - A seller signs in (SIWE), lists a service paid to its own wallet; a buyer with no account
 *   gets x402 terms, pays the seller on chain, invokes with X-PAYMENT, and checks the receipt
 *   against the deployment's published signer; the same transfer is refused a second time.
 * - A proof-of-backing subject on a custodian: a check published with its canonical line,
 *   whose sha256 and signature anyone recomputes; a custodian outage is published too.
 * - A public attestation anyone reads, and the launch rail answering 501 until enabled.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type Address, type Hex, recoverMessageAddress, verifyMessage } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { freePort, runSvc, type Served, serveSvc, svcBinary } from "../support/binary.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../support/devnet.ts";
import { tempDir } from "../support/harness.ts";

let chain: Devnet;
let usdt: Address;
let served: Served;
let base: string;
let custodianReserve: string | null = "2500000";
let custodian: ReturnType<typeof Bun.serve>;
let seller: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  await svcBinary();
  chain = await startDevnet();
  usdt = await chain.deployToken();
  await chain.mint(usdt, chain.accounts[1]!, 1_000_000_000n);
  custodian = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => (custodianReserve === null ? new Response("maintenance", { status: 503 }) : Response.json({ reserves: { usd: custodianReserve } })),
  });
  seller = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => Response.json({ summary: `got ${((await req.json()) as { text: string }).text.length} chars` }) });

  const dir = join(tempDir(), "data");
  const svc = (...args: string[]) => runSvc([...args, "--data-dir", dir]);
  expect((await svc("setup", "--yes", "--treasury", "0x6813eb9362372eef6200f3b1dbc3f819671cba69")).code).toBe(0);
  expect((await svc("chains", "add", "devnet", "--rpc", chain.url, "--chain-id", String(DEVNET_CHAIN_ID), "--usdt", usdt, "--confirmations", "1")).code).toBe(0);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  served = await serveSvc(dir, { port, env: { SVC_PUBLIC_URL: base, SVC_ALLOW_PRIVATE_WEBHOOKS: "1" } });
}, 120_000);

afterAll(async () => {
  await served?.stop();
  custodian?.stop(true);
  seller?.stop(true);
  await chain?.stop();
});

async function http(method: string, path: string, init: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A wallet signs in with SIWE exactly as a browser wallet would; returns its session token. */
async function signIn(wallet = privateKeyToAccount(generatePrivateKey())) {
  const { nonce } = (await http("POST", "/v1/auth/nonce")).body;
  const site = new URL(base);
  const message = createSiweMessage({ address: wallet.address, chainId: 1, domain: site.host, nonce, uri: base, version: "1", issuedAt: new Date(), statement: "Sign in to svc" });
  const r = await http("POST", "/v1/auth/verify", { body: { message, signature: await wallet.signMessage({ message }) } });
  expect(r.status).toBe(200);
  return { wallet, token: r.body.token as string };
}

const proofOf = (txHash: string) => Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: txHash } })).toString("base64");

describe("the services marketplace, through the compiled binary", () => {
  test("x402 terms pay the seller's wallet; the paid call answers with a receipt anyone verifies; a transfer pays once", async () => {
    const me = await signIn();
    const made = await http("POST", "/v1/services", {
      token: me.token,
      body: { slug: "summarise", name: "Summariser", description: "counts characters", price_micro_usd: 250_000, payee: me.wallet.address, upstream_url: `http://127.0.0.1:${seller.port}/run` },
    });
    expect(made.status).toBe(201);
    expect((await http("GET", "/v1/services/directory")).body.services.map((s: { slug: string }) => s.slug)).toContain("summarise");

    const terms = await http("POST", "/v1/services/summarise/invoke", { body: { text: "hello" } });
    expect(terms.status).toBe(402);
    const option = terms.body.accepts[0];
    expect(option).toMatchObject({ scheme: "exact", network: "devnet", maxAmountRequired: "250000" });
    expect(option.payTo.toLowerCase()).toBe(me.wallet.address.toLowerCase());

    const buyer = chain.accounts[1]!;
    const paid = await chain.transfer(usdt, buyer, option.payTo as Address, BigInt(option.maxAmountRequired));
    const ok = await http("POST", "/v1/services/summarise/invoke", { body: { text: "hello world" }, headers: { "x-payment": proofOf(paid) } });
    expect(ok.status).toBe(200);
    expect(ok.body.result).toMatchObject({ type: "upstream", http_status: 200, body: { summary: "got 11 chars" } });
    const published = (await http("GET", "/v1/receipts/pubkey")).body.address;
    expect(await recoverMessageAddress({ message: ok.body.receipt.statement, signature: ok.body.receipt.signature as Hex })).toBe(published);
    const payload = JSON.parse(Buffer.from(ok.body.receipt.statement, "base64url").toString("utf8"));
    expect(payload).toMatchObject({ type: "service_call", slug: "summarise", tx_hash: paid.toLowerCase(), status: "completed" });
    expect(JSON.stringify(payload)).not.toContain("hello");
    expect(await chain.balanceOf(usdt, me.wallet.address)).toBe(250_000n);

    const again = await http("POST", "/v1/services/summarise/invoke", { body: { text: "again" }, headers: { "x-payment": proofOf(paid) } });
    expect([again.status, again.body.error.reason]).toEqual([402, "payment_already_used"]);
    const calls = await http("GET", "/v1/services/manage/summarise/calls", { token: me.token });
    expect(calls.body.calls).toHaveLength(1);
  });
});

describe("proof of backing and attestations, through the compiled binary", () => {
  test("each check publishes its canonical line, its sha256 and a signature over it; an outage is published too", async () => {
    const me = await signIn();
    const watch = async (name: string) => {
      const made = await http("POST", "/v1/pob/subjects", {
        token: me.token,
        body: { name, endpoint: `http://127.0.0.1:${custodian.port}/reserves?key=abc`, credential: "cust-secret", pointer: "/reserves/usd", interval_s: 3600, claimed_supply: "2000000" },
      });
      expect(made.status).toBe(201);
      expect(JSON.stringify(made.body)).not.toContain("cust-secret");
      const checked = await http("POST", `/v1/pob/subjects/${made.body.id}/check`, { token: me.token, body: {} });
      expect(checked.status).toBeLessThan(300);
      return made.body.slug as string;
    };
    // (svc serve's own schedule may add checks of its own meanwhile: the lists are read as sets.)
    const backed = await watch("USDX reserves");
    custodianReserve = null;
    const down = await watch("USDY reserves");
    custodianReserve = "2500000";

    const published = (await http("GET", "/v1/receipts/pubkey")).body.address;
    for (const [slug, status] of [[backed, "BACKED"], [down, "UNAVAILABLE"]] as const) {
      const checks = (await http("GET", `/v1/pob/public/${slug}/checks`)).body.checks as { status: string; line: string; line_sha256: string; signature: Hex; signer: Address }[];
      expect(checks.map((c) => c.status)).toContain(status);
      for (const c of checks) {
        expect(createHash("sha256").update(c.line).digest("hex")).toBe(c.line_sha256);
        expect(c.signer).toBe(published);
        expect(await verifyMessage({ address: c.signer, message: c.line, signature: c.signature })).toBe(true);
      }
    }
  });

  test("an attestation checked with an API key, against the custodian and the token's on-chain supply, is readable by anyone once public", async () => {
    const me = await signIn();
    const key = await http("POST", "/v1/keys", { token: me.token, body: { name: "records", scopes: ["records"] } });
    expect(key.status).toBe(201);
    const checked = await http("POST", "/v1/attestations/check", {
      token: key.body.key,
      body: {
        asset_id: "usdx-e2e",
        subject_ref: "TestUSDT on the devnet",
        public: true,
        claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600 },
        sources: [
          { kind: "custodian", url: `http://127.0.0.1:${custodian.port}/reserves`, pointer: "/reserves/usd" },
          { kind: "erc20_supply", chain: "devnet", token: usdt },
        ],
      },
    });
    expect(checked.status).toBe(201);
    expect(checked.body.payload.status).toBe("VERIFIED");
    const view = await http("GET", "/v1/assets/usdx-e2e/verification");
    expect(view.status).toBe(200);
    const published = (await http("GET", "/v1/receipts/pubkey")).body.address;
    expect(await recoverMessageAddress({ message: checked.body.receipt, signature: checked.body.signature as Hex })).toBe(published);
    expect((await http("GET", "/v1/assets/not-there/verification")).status).toBe(404);
  });

  test("GET /v1/attestation says plainly that no confidential backend is configured; launches answer 501 until enabled", async () => {
    const tee = await http("GET", "/v1/attestation");
    expect(tee.status).toBe(200);
    expect(tee.body).toMatchObject({ verified: false });
    const me = await signIn();
    const launch = await http("POST", "/v1/launches", {
      token: me.token,
      body: {
        name: "Gold Dollar",
        custodian: { kind: "custodian", url: `http://127.0.0.1:${custodian.port}/reserves`, pointer: "/reserves/usd" },
        decimals: 6,
        interval_s: 3600,
        spec: { tools: ["nav"], passthrough: false },
      },
    });
    expect([launch.status, launch.body.error.type]).toEqual([501, "not_implemented"]);
    expect((await http("GET", "/v1/launches/fees")).body).toMatchObject({ launch_fee_micro_usd: 0, monthly_fee_micro_usd: 0 });
  });
});
