/**
 * GET /v1/attestation and /v1/status's confidential block against a stand-in TEE backend
 * (Bun.serve on 127.0.0.1) that answers the signed_report format with an Ed25519 key made
 * here: not configured, verified (signature recovered with viem, the document's fingerprint and
 * nonce checked), and verified:false with a sanitised error for every way a report can be bad,
 * an endpoint that answers 5xx, is slow or is down; one verification held for max_age_secs and
 * shared by concurrent callers; the scheduled re-verification feeding the status block.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { type Hex, recoverMessageAddress } from "viem";
import type { Config } from "../../../src/config.ts";
import { confidentialConfig } from "../../../src/domains/confidential/config.ts";
import { confidentialModule } from "../../../src/domains/confidential/module.ts";
import { providerAttested } from "../../../src/domains/confidential/index.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const MEASUREMENT = "a1".repeat(32);
const SECRET = "s3cr3t-attestation-token";
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const PUBLIC_KEY_HEX = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url").toString("hex");
const otherKey = generateKeyPairSync("ed25519").privateKey;

type Mode = "good" | "bad_signature" | "wrong_measurement" | "replayed" | "stale" | "not_json" | "not_a_report" | "http_503" | "hang";

/** What the stand-in backend does per path (/<mode>), and how many requests it has had. */
let hits = 0;
let server: ReturnType<typeof Bun.serve>;
let downUrl: string;

function report(nonce: string, opts: { key?: KeyObject; measurement?: string; issuedAt?: number } = {}) {
  const claims = { format: "svc-signed-report/1", measurement: opts.measurement ?? MEASUREMENT, nonce, issued_at: new Date(opts.issuedAt ?? h.clock.now()).toISOString() };
  const bytes = Buffer.from(JSON.stringify(claims));
  return { report: bytes.toString("base64url"), signature: sign(null, bytes, opts.key ?? privateKey).toString("base64url") };
}

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      hits++;
      const mode = new URL(req.url).pathname.slice(1) as Mode;
      const { nonce } = (await req.json()) as { nonce: string };
      switch (mode) {
        case "good":
          return Response.json(report(nonce));
        case "bad_signature":
          return Response.json(report(nonce, { key: otherKey }));
        case "wrong_measurement":
          return Response.json(report(nonce, { measurement: "b2".repeat(32) }));
        case "replayed":
          return Response.json(report("0".repeat(64)));
        case "stale":
          return Response.json(report(nonce, { issuedAt: h.clock.now() - 3_600_000 }));
        case "not_json":
          return new Response("<html>oops</html>", { headers: { "content-type": "text/html" } });
        case "not_a_report":
          return Response.json({ quote: "AAAA" });
        case "http_503":
          return new Response("backend at 10.0.0.7 is overloaded", { status: 503 });
        case "hang":
          return new Promise<Response>(() => {});
      }
    },
  });
  // A port that was open a moment ago and is now closed: the endpoint is down.
  const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  downUrl = `http://127.0.0.1:${gone.port}/attest?token=${SECRET}`;
  await gone.stop(true);
});
afterAll(() => server?.stop(true));

const url = (mode: Mode) => `http://127.0.0.1:${server.port}/${mode}?token=${SECRET}`;

function backend(name: string, attestationUrl: string, provider?: string) {
  return { name, kind: "signed_report" as const, attestation_url: attestationUrl, expected_measurements: [MEASUREMENT.toUpperCase()], public_key: PUBLIC_KEY_HEX, ...(provider ? { provider } : {}) };
}

function harness(backends: ReturnType<typeof backend>[], tweak: (c: Config) => void = () => {}): Harness {
  return makeHarness({
    config: (c) => {
      c.confidential.backends = backends;
      c.confidential.max_age_secs = 0;
      tweak(c);
    },
  });
}

const attestation = () => h.json("GET", "/v1/attestation");

async function signedPayload(body: { statement: string; signature: string; signer: string }) {
  const recovered = await recoverMessageAddress({ message: body.statement, signature: body.signature as Hex });
  expect(recovered.toLowerCase()).toBe(body.signer.toLowerCase());
  expect(recovered.toLowerCase()).toBe(h.ctx.signer.address.toLowerCase());
  return JSON.parse(Buffer.from(body.statement, "base64url").toString("utf8"));
}

/** Nothing of where the backend is or what it said leaks into a public answer. */
function sanitised(body: unknown) {
  const text = JSON.stringify(body);
  for (const leak of [SECRET, "127.0.0.1", "10.0.0.7", "token=", "http://", "overloaded", "<html>", "    at "]) expect(text).not.toContain(leak);
}

describe("not configured", () => {
  test("verified:false with the not-configured error, signed; /v1/status has no confidential block", async () => {
    h = makeHarness();
    const r = await attestation();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ verified: false, error: "no confidential backend is configured", backends: [], checked_at: new Date(h.clock.now()).toISOString() });
    expect(await signedPayload(r.body)).toEqual({ v: 1, type: "confidential-attestation", verified: false, error: "no confidential backend is configured", checked_at: r.body.checked_at, backends: [] });
    const status = await h.json("GET", "/v1/status");
    expect(status.status).toBe(200);
    expect(status.body).not.toHaveProperty("confidential");
    expect(providerAttested(h.ctx, "oa")).toBe(false);
  });
});

describe("verified", () => {
  test("a good signed report: measurement, fingerprint of the exact document, the nonce svc sent, a signed answer; the status block follows", async () => {
    h = harness([backend("tee-a", url("good"), "oa")]);
    const before = await h.json("GET", "/v1/status");
    expect(before.body.confidential).toEqual({
      verified: null,
      checked_at: null,
      error: null,
      backends: [{ name: "tee-a", kind: "signed_report", provider: "oa", verified: null, measurement: null }],
    });
    const r = await attestation();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ verified: true, error: null });
    const [b] = r.body.backends;
    expect(b).toMatchObject({ name: "tee-a", kind: "signed_report", provider: "oa", verified: true, measurement: MEASUREMENT, issued_at: new Date(h.clock.now()).toISOString(), error: null });
    const document = Buffer.from(b.document_b64, "base64");
    expect(b.document_sha256).toBe(createHash("sha256").update(document).digest("hex"));
    const claims = JSON.parse(Buffer.from(JSON.parse(document.toString()).report, "base64url").toString());
    expect(claims.nonce).toBe(b.nonce);
    const payload = await signedPayload(r.body);
    expect(payload).toMatchObject({ type: "confidential-attestation", verified: true, checked_at: r.body.checked_at });
    const { document_b64: _document, ...stated } = b;
    expect(payload.backends).toEqual([stated]);
    sanitised(r.body);

    const status = await h.json("GET", "/v1/status");
    expect(status.body.confidential).toEqual({
      verified: true,
      checked_at: r.body.checked_at,
      error: null,
      backends: [{ name: "tee-a", kind: "signed_report", provider: "oa", verified: true, measurement: MEASUREMENT }],
    });
    expect(providerAttested(h.ctx, "oa")).toBe(true);
    expect(providerAttested(h.ctx, "an")).toBe(false);

    // A second call verifies again with a new nonce (max_age_secs 0).
    const again = await attestation();
    expect(again.body.backends[0].nonce).not.toBe(b.nonce);
  });
});

describe("verified:false with a sanitised error", () => {
  test("every bad report, a 5xx, a slow and a down endpoint name what failed and nothing of where", async () => {
    const cases: [string, string][] = [
      [url("bad_signature"), "the report's signature does not verify against the configured public key"],
      [url("wrong_measurement"), "the reported measurement is not one of the expected measurements"],
      [url("replayed"), "does not carry the nonce svc sent"],
      [url("stale"), "issued more than 5 minutes away from svc's clock"],
      [url("not_json"), "the attestation document is not JSON"],
      [url("not_a_report"), "the attestation document is not a signed report"],
      [url("http_503"), "the attestation endpoint answered HTTP 503"],
      [url("hang"), "no answer within 300 ms"],
      [downUrl, "the attestation endpoint could not be reached"],
    ];
    for (const [target, reason] of cases) {
      h = harness([backend("tee-a", target, "oa")], (c) => void (c.confidential.timeout_ms = 300));
      const r = await attestation();
      expect(r.status).toBe(200);
      expect(r.body.verified).toBe(false);
      expect(r.body.error).toBe(`1 of 1 confidential backends failed attestation: tee-a: ${r.body.backends[0].error}`);
      expect([target, r.body.backends[0].error]).toEqual([target, expect.stringContaining(reason)]);
      expect(r.body.backends[0]).toMatchObject({ verified: false, measurement: null, document_sha256: null, document_b64: null });
      sanitised(r.body);
      expect((await signedPayload(r.body)).verified).toBe(false);
      const status = await h.json("GET", "/v1/status");
      expect(status.body.confidential.verified).toBe(false);
      sanitised(status.body);
      expect(providerAttested(h.ctx, "oa")).toBe(false);
      h.close();
    }
  });

  test("one failing backend of two makes the whole answer unverified; the good one still shows verified", async () => {
    h = harness([backend("tee-a", url("good"), "oa"), backend("tee-b", downUrl, "an")]);
    const r = await attestation();
    expect(r.body.verified).toBe(false);
    expect(r.body.error).toBe("1 of 2 confidential backends failed attestation: tee-b: the attestation endpoint could not be reached");
    expect(r.body.backends.map((b: { name: string; verified: boolean }) => [b.name, b.verified])).toEqual([["tee-a", true], ["tee-b", false]]);
    expect(providerAttested(h.ctx, "oa")).toBe(true);
    expect(providerAttested(h.ctx, "an")).toBe(false);
  });
});

describe("holding one verification", () => {
  test("one verification answers for max_age_secs and concurrent callers share it; then it is verified afresh", async () => {
    let mode: Mode = "good";
    const switching = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        hits++;
        const { nonce } = (await req.json()) as { nonce: string };
        return Response.json(mode === "good" ? report(nonce) : report(nonce, { key: otherKey }));
      },
    });
    try {
      h = harness([backend("tee-a", `http://127.0.0.1:${switching.port}/`)], (c) => void (c.confidential.max_age_secs = 60));
      hits = 0;
      const [a, b] = await Promise.all([attestation(), attestation()]);
      expect(hits).toBe(1);
      expect(a.body).toEqual(b.body);
      expect(a.body.verified).toBe(true);
      mode = "bad_signature";
      h.clock.advance(59_000);
      expect((await attestation()).body).toEqual(a.body);
      expect(hits).toBe(1);
      h.clock.advance(1_000);
      const fresh = await attestation();
      expect(hits).toBe(2);
      expect(fresh.body.verified).toBe(false);
      expect(fresh.body.backends[0].error).toContain("signature does not verify");
    } finally {
      await switching.stop(true);
    }
  });

  test("svc serve's job verifies every check_interval_secs, so /v1/status reports it before anyone asks; the answer ages out of providerAttested", async () => {
    h = harness([backend("tee-a", url("good"), "oa")], (c) => void (c.confidential.check_interval_secs = 60));
    confidentialModule.jobs!(h.ctx);
    await h.ctx.scheduler.runDue();
    const status = await h.json("GET", "/v1/status");
    expect(status.body.confidential).toMatchObject({ verified: true, checked_at: new Date(h.clock.now()).toISOString() });
    expect(providerAttested(h.ctx, "oa")).toBe(true);
    h.clock.advance(121_000);
    expect(providerAttested(h.ctx, "oa")).toBe(false);
    await h.ctx.scheduler.runDue();
    expect(providerAttested(h.ctx, "oa")).toBe(true);
  });
});

describe("configuration", () => {
  test("a signed_report backend needs its public key, and names are unique", () => {
    h = makeHarness();
    const config = (backends: unknown[]) => ({ ...h.ctx.config, confidential: { ...h.ctx.config.confidential, backends } }) as Config;
    const { public_key: _, ...keyless } = backend("tee-a", url("good"));
    expect(() => confidentialConfig.check!(config([keyless]))).toThrow("confidential.backends[0].public_key is required for kind signed_report");
    expect(() => confidentialConfig.check!(config([backend("tee-a", url("good")), backend("tee-a", url("good"))]))).toThrow('confidential.backends[1].name: "tee-a" is used twice');
    expect(() => confidentialConfig.check!(config([backend("tee-a", url("good"))]))).not.toThrow();
  });
});
