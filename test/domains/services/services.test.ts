/**
 * The marketplace's routes without a payment: a seller's services (create, list, patch, delete,
 * calls), the public directory and service page, the reserved literal segments, 402 terms with
 * payTo = the seller, disabled and deleted services as 404, bad input naming its field, another
 * account's slugs as 404. Paying on a real chain: invoke.test.ts.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { startUpstream, type UpstreamStub } from "../../support/upstream.ts";
import { makeHarness, type Harness } from "../../support/harness.ts";
import { createService, marketConfig, seller, TREASURY, UNUSED_TOKEN, xPayment } from "./services-support.ts";

const PAYEE = "0x" + "ab".repeat(20);
const OTHER_PAYEE = "0x" + "cd".repeat(20);
const CHAIN = { url: "http://127.0.0.1:9", token: UNUSED_TOKEN };

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});
let stub: UpstreamStub | undefined;
afterAll(() => stub?.stop());

const world = () => (h = makeHarness({ config: marketConfig(CHAIN) }));
const UPSTREAM = "http://127.0.0.1:1/echo";

describe("a seller's services", () => {
  test("create, list, patch, delete: the slug stays taken forever", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    const made = await createService(h, s, { slug: "echo-1", upstream_url: UPSTREAM });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      slug: "echo-1",
      name: "Echo",
      price_micro_usd: 250_000,
      payee: toChecksumAddress(PAYEE),
      kind: "upstream",
      upstream_url: UPSTREAM,
      handler: null,
      listed: true,
      enabled: true,
      invoke_path: "/v1/services/echo-1/invoke",
      deleted_at: null,
    });
    expect(made.body.id).toMatch(/^svc_/);

    const list = await h.json("GET", "/v1/services", s.auth);
    expect(list.status).toBe(200);
    expect(list.body.services.map((x: { slug: string }) => x.slug)).toEqual(["echo-1"]);

    const patched = await h.json("PATCH", "/v1/services/manage/echo-1", { ...s.auth, body: { price_micro_usd: 300_000, description: "new", listed: false, enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ price_micro_usd: 300_000, description: "new", listed: false, enabled: false });

    const calls = await h.json("GET", "/v1/services/manage/echo-1/calls", s.auth);
    expect(calls.status).toBe(200);
    expect(calls.body).toEqual({ calls: [], service_id: made.body.id, slug: "echo-1" });

    const gone = await h.json("DELETE", "/v1/services/manage/echo-1", s.auth);
    expect(gone.status).toBe(200);
    expect(gone.body.deleted_at).toBe(new Date(h.clock.now()).toISOString());
    expect((await h.json("GET", "/v1/services", s.auth)).body.services).toEqual([]);
    for (const [method, path] of [
      ["DELETE", "/v1/services/manage/echo-1"],
      ["PATCH", "/v1/services/manage/echo-1"],
      ["GET", "/v1/services/manage/echo-1/calls"],
      ["GET", "/v1/services/echo-1"],
      ["POST", "/v1/services/echo-1/invoke"],
    ] as const) {
      const r = await h.json(method, path, { ...s.auth, body: method === "PATCH" ? { enabled: true } : method === "POST" ? {} : undefined });
      expect([path, r.status]).toEqual([path, 404]);
    }
    // Nobody, the same seller included, gets the slug again.
    const again = await createService(h, s, { slug: "echo-1", upstream_url: UPSTREAM });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("slug_taken");
    const other = seller(h, OTHER_PAYEE);
    expect((await createService(h, other, { slug: "echo-1", upstream_url: UPSTREAM })).body.error.type).toBe("slug_taken");
  });

  test("a handler service names a chat model of the catalogue or one of the account's engine builds", async () => {
    stub = startUpstream({ apiKey: "k" });
    const h = makeHarness({
      config: marketConfig(CHAIN, (c) => {
        Object.assign(c, parseInferenceSection({ providers: [{ name: "oa", kind: "openai", base_url: stub!.openaiBaseUrl, timeout_secs: 5 }], models: [{ id: "gpt-test", provider: "oa", upstream: "stub-gpt", input_micro_usd_per_mtok: 1, output_micro_usd_per_mtok: 1, max_output: 100 }] }));
      }),
    });
    try {
      const s = seller(h, PAYEE);
      const made = await createService(h, s, { slug: "answers", handler: "gpt-test" });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ kind: "handler", handler: "gpt-test", upstream_url: null });
      const unknown = await createService(h, s, { slug: "answers-2", handler: "no-such-model" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ type: "model_not_found", param: "handler" });
      const engine = await createService(h, s, { slug: "answers-3", handler: "engine/not-published" });
      expect(engine.status).toBe(404);
      expect(engine.body.error.type).toBe("model_not_found");
      // A handler service reads the buyer's `input` (checked once a payment header is there).
      const noInput = await h.json("POST", "/v1/services/answers/invoke", { headers: xPayment(`0x${"12".repeat(32)}`), body: { text: "hi" } });
      expect(noInput.status).toBe(400);
      expect(noInput.body.error.param).toBe("input");
    } finally {
      h.close();
    }
  });

  test("bad input names the field", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: "Echo", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "-echo", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "e", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "directory", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "manage", upstream_url: UPSTREAM }, "slug"],
      [{ slug: "ok-slug" }, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, handler: "gpt-test" }, "handler"],
      [{ slug: "ok-slug", upstream_url: "ftp://example.com/x" }, "upstream_url"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, price_micro_usd: 0 }, "price_micro_usd"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, price_micro_usd: 1.5 }, "price_micro_usd"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, price_micro_usd: "5" }, "price_micro_usd"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, payee: "0x1234" }, "payee"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, payee: TREASURY }, "payee"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, name: "   " }, "name"],
      [{ slug: "ok-slug", upstream_url: UPSTREAM, colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const r = await createService(h, s, body);
      expect([JSON.stringify(body), r.status, r.body.error?.param]).toEqual([JSON.stringify(body), 400, param]);
    }
    await createService(h, s, { slug: "real", upstream_url: UPSTREAM });
    const patches: [Record<string, unknown>, string][] = [
      [{}, "body"],
      [{ name: "renamed" }, "name"],
      [{ payee: PAYEE }, "payee"],
      [{ price_micro_usd: -1 }, "price_micro_usd"],
      [{ enabled: "yes" }, "enabled"],
    ];
    for (const [body, param] of patches) {
      const r = await h.json("PATCH", "/v1/services/manage/real", { ...s.auth, body });
      expect([JSON.stringify(body), r.status, r.body.error?.param]).toEqual([JSON.stringify(body), 400, param]);
    }
  });

  test("the payee must be a wallet linked to the account; private upstreams only where the operator allows them", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    const r = await createService(h, s, { slug: "echo", upstream_url: UPSTREAM, payee: OTHER_PAYEE });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "payee_not_linked", payee: toChecksumAddress(OTHER_PAYEE) });

    const strict = makeHarness({ config: marketConfig(CHAIN, (c) => (c.webhooks.allow_private = false)) });
    try {
      const t = seller(strict, PAYEE);
      const refused = await createService(strict, t, { slug: "echo", upstream_url: "http://169.254.169.254/latest" });
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe("upstream_url");
      expect(refused.body.error.message).toContain("cloud metadata");
    } finally {
      strict.close();
    }
  });

  test("another account's slugs answer 404 exactly like unknown ones", async () => {
    const h = world();
    const a = seller(h, PAYEE);
    const b = seller(h, OTHER_PAYEE);
    await createService(h, a, { slug: "mine", upstream_url: UPSTREAM });
    for (const [method, path, body] of [
      ["PATCH", "/v1/services/manage/mine", { enabled: false }],
      ["DELETE", "/v1/services/manage/mine", undefined],
      ["GET", "/v1/services/manage/mine/calls", undefined],
    ] as const) {
      const theirs = await h.json(method, path, { ...b.auth, body });
      const unknown = await h.json(method, path.replace("mine", "nope"), { ...b.auth, body });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
    }
    expect((await h.json("GET", "/v1/services", b.auth)).body.services).toEqual([]);
    // Untouched by b's attempts.
    expect((await h.json("GET", "/v1/services", a.auth)).body.services[0]).toMatchObject({ slug: "mine", enabled: true });
  });

  test("manage routes need a session", async () => {
    const h = world();
    expect((await h.json("GET", "/v1/services")).status).toBe(401);
    expect((await h.json("POST", "/v1/services", { body: {} })).status).toBe(401);
    expect((await h.json("GET", "/v1/services/manage/x/calls")).status).toBe(401);
  });

  test("without a chain to pay on, no service can be made", async () => {
    const h = makeHarness({ config: marketConfig(null) });
    try {
      const s = seller(h, PAYEE);
      const r = await createService(h, s, { slug: "echo", upstream_url: UPSTREAM });
      expect(r.status).toBe(501);
    } finally {
      h.close();
    }
  });
});

describe("the public marketplace", () => {
  test("the directory lists listed, enabled services with the settlement terms; literal segments win over slugs", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    await createService(h, s, { slug: "alpha", upstream_url: UPSTREAM });
    await createService(h, s, { slug: "beta", upstream_url: UPSTREAM, listed: false });
    await createService(h, s, { slug: "gamma", upstream_url: UPSTREAM });
    await h.json("PATCH", "/v1/services/manage/gamma", { ...s.auth, body: { enabled: false } });

    const dir = await h.json("GET", "/v1/services/directory");
    expect(dir.status).toBe(200);
    expect(dir.body.services.map((x: { slug: string }) => x.slug)).toEqual(["alpha"]);
    expect(dir.body.ordering).toBe("calls_completed_desc");
    expect(dir.body.settlement).toMatchObject({ protocol: "x402", scheme: "exact", custody: "none", chains: [{ name: "devnet", token: toChecksumAddress(UNUSED_TOKEN), decimals: 6, confirmations: 3 }] });
    expect(dir.body.services[0]).toMatchObject({ slug: "alpha", calls_completed: 0, payee: toChecksumAddress(PAYEE) });
    expect(JSON.stringify(dir.body)).not.toContain(UPSTREAM);

    // Unlisted: absent from the directory, callable by its slug. Disabled: 404 like unknown.
    const beta = await h.json("GET", "/v1/services/beta");
    expect(beta.status).toBe(200);
    expect(beta.body).toMatchObject({
      slug: "beta",
      price_micro_usd: 250_000,
      payee: toChecksumAddress(PAYEE),
      x402Version: 1,
      accepts: [{ scheme: "exact", network: "devnet", maxAmountRequired: "250000", payTo: toChecksumAddress(PAYEE), asset: toChecksumAddress(UNUSED_TOKEN), resource: "/v1/services/beta/invoke" }],
    });
    expect(beta.body).not.toHaveProperty("upstream_url");
    const gamma = await h.json("GET", "/v1/services/gamma");
    expect(gamma.status).toBe(404);
    expect(gamma.body).toEqual((await h.json("GET", "/v1/services/nope")).body);
    expect((await h.json("POST", "/v1/services/gamma/invoke", { body: {} })).status).toBe(404);
    expect((await h.json("POST", "/v1/services/gamma/invoke", { headers: xPayment(`0x${"12".repeat(32)}`), body: {} })).status).toBe(404);
    // "manage" is never a slug: the public page answers 404.
    expect((await h.json("GET", "/v1/services/manage")).status).toBe(404);
  });

  test("invoke without a payment answers 402 with x402 terms paying the seller, not the treasury", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    await createService(h, s, { slug: "echo", upstream_url: UPSTREAM, price_micro_usd: 1_500_000 });
    const r = await h.json("POST", "/v1/services/echo/invoke", { body: { q: 1 } });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("payment_required");
    expect(r.body.x402Version).toBe(1);
    expect(r.body.accepts).toEqual([
      {
        scheme: "exact",
        network: "devnet",
        maxAmountRequired: "1500000",
        resource: "/v1/services/echo/invoke",
        description: expect.any(String),
        mimeType: "application/json",
        payTo: toChecksumAddress(PAYEE),
        maxTimeoutSeconds: 600,
        asset: toChecksumAddress(UNUSED_TOKEN),
        extra: { name: "USDT", decimals: 6, chain_id: 31337, confirmations: 3 },
      },
    ]);
    const v2 = JSON.parse(Buffer.from(r.headers.get("payment-required")!, "base64").toString("utf8"));
    expect(v2).toMatchObject({ x402Version: 2, accepts: [{ network: "eip155:31337", amount: "1500000", payTo: toChecksumAddress(PAYEE) }] });
    expect(JSON.stringify(r.body)).not.toContain(TREASURY.slice(2));
  });

  test("a payment header svc cannot read is refused with its reason, and the terms again", async () => {
    const h = world();
    const s = seller(h, PAYEE);
    await createService(h, s, { slug: "echo", upstream_url: UPSTREAM });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");
    const cases: [Record<string, string>, string][] = [
      [{ "x-payment": "not base64 !" }, "malformed_payment"],
      [{ "x-payment": b64([1]) }, "malformed_payment"],
      [{ "x-payment": b64({ x402Version: 3 }) }, "unsupported_version"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "upto", network: "devnet", payload: {} }) }, "unsupported_scheme"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "exact", network: "devnet", payload: { signature: "0x" } }) }, "unsupported_payload"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: "0x12" } }) }, "malformed_payment"],
      [xPayment(`0x${"12".repeat(32)}`, "mainnet"), "unknown_network"],
      [{ ...xPayment(`0x${"12".repeat(32)}`), "payment-signature": "other" }, "malformed_payment"],
    ];
    for (const [headers, reason] of cases) {
      const r = await h.json("POST", "/v1/services/echo/invoke", { headers, body: {} });
      expect([reason, r.status, r.body.error?.type, r.body.error?.reason]).toEqual([reason, 402, "payment_rejected", reason]);
      expect(r.body.accepts).toHaveLength(1);
    }
    // Bad bodies and paths.
    expect((await h.json("POST", "/v1/services/echo/invoke", { raw: "[1,2]", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await h.json("GET", `/v1/services/${"a".repeat(101)}`)).status).toBe(400);
  });
});
