/**
 * The svc_ fields of the inference routes (spec §4.3) through real HTTP: privacy tier (the
 * key's, overridden per call; only providers declaring it are eligible; confidential with no
 * attestable provider refused with attestation_failed), region pinning, scrubbing (the upstream
 * receives the redacted prompt, the receipt the count), run ids chaining receipts, context
 * fingerprints on the receipt — and never any content on a receipt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { MerkleTree } from "../../../src/core/merkle.ts";
import type { UpstreamStub } from "../../support/upstream.ts";
import { type Gateway, type ModelOver, type ProviderOver, receiptEventOf, receiptFromHeaders, startGateway, usageEvents, verifyReceipt } from "./inference-support.ts";

function tieredCatalog(stub: UpstreamStub): { providers: ProviderOver[]; models: ModelOver[] } {
  const oa = (name: string, extra: Partial<ProviderOver>): ProviderOver => ({ name, kind: "openai" as const, base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", ...extra });
  return {
    providers: [
      oa("oa-us", { regions: ["us"], privacy_tiers: ["standard"] }),
      oa("oa-eu-zr", { regions: ["eu"], privacy_tiers: ["standard", "zero_retention"] }),
      { name: "an-us", kind: "anthropic" as const, base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", regions: ["us"], privacy_tiers: ["standard"] },
    ],
    models: [
      { id: "gpt-test", provider: "oa-us", upstream: "stub-gpt", fallback_providers: ["oa-eu-zr"] },
      { id: "claude-test", provider: "an-us", upstream: "stub-claude" },
      { id: "embed-test", provider: "oa-us", upstream: "stub-embed", type: "embedding" as const, input_micro_usd_per_mtok: 100_000, output_micro_usd_per_mtok: undefined },
    ],
  };
}

let g: Gateway;
beforeAll(async () => {
  g = await startGateway({ catalog: tieredCatalog });
});
afterAll(() => g.stop());

const ask = (content: string, extra: object = {}) => ({ model: "gpt-test", messages: [{ role: "user", content }], ...extra });
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any, headers: res.headers });

describe("svc_privacy_tier and svc_region", () => {
  test("only providers declaring the tier are eligible: zero_retention goes to the one that does", async () => {
    const res = await g.post("/v1/chat/completions", ask("private please", { svc_privacy_tier: "zero_retention" }));
    expect(res.status).toBe(200);
    const payload = await receiptFromHeaders(g, res.headers);
    expect(payload.attestations.routing).toEqual({ provider: "oa-eu-zr", privacy_tier: "zero_retention" });
    const plain = await receiptFromHeaders(g, (await g.post("/v1/chat/completions", ask("standard"))).headers);
    expect(plain.attestations.routing).toEqual({ provider: "oa-us", privacy_tier: "standard" });
  });

  test("confidential with no attestable provider: 403 privacy_tier_unavailable, an attestation_failed event, nothing sent or reserved", async () => {
    const before = { upstream: g.stub.requests.length, events: usageEvents(g).length };
    const mark = g.h.ctx.outbox.since(0).at(-1)?.seq ?? 0;
    const { status, body } = await json(await g.post("/v1/chat/completions", ask("secret", { svc_privacy_tier: "confidential" })));
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ type: "privacy_tier_unavailable", privacy_tier: "confidential", tiers_offered: ["standard", "zero_retention"] });
    const events = g.h.ctx.outbox.since(mark).filter((e) => e.type === "attestation_failed");
    expect(events).toHaveLength(1);
    expect(events[0]!.account_id).toBe(g.accountId);
    expect(events[0]!.payload).toMatchObject({ model: "gpt-test", privacy_tier: "confidential", key_id: g.keyId });
    expect(g.stub.requests.length).toBe(before.upstream);
    expect(usageEvents(g).length).toBe(before.events);
    // Another unsatisfiable tier is refused the same way, without the event.
    const zr = await json(await g.post("/v1/messages", { model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "x" }], svc_privacy_tier: "zero_retention" }));
    expect(zr.status).toBe(403);
    expect(g.h.ctx.outbox.since(mark).filter((e) => e.type === "attestation_failed")).toHaveLength(1);
  });

  test("the key's own tier (POST /v1/keys privacy_tier) applies unless the call overrides it", async () => {
    const session = { authorization: `Bearer ${g.sessionToken}` };
    const bad = await g.h.json("POST", "/v1/keys", { headers: session, body: { privacy_tier: "secret" } });
    expect(bad.status).toBe(400);
    const minted = await g.h.json("POST", "/v1/keys", { headers: session, body: { name: "zr", privacy_tier: "zero_retention" } });
    expect(minted.status).toBe(201);
    expect(minted.body.privacy_tier).toBe("zero_retention");
    const { openai } = g.clientsFor(minted.body.key);
    const { response } = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "keyed tier" }] }).withResponse();
    expect((await receiptFromHeaders(g, response.headers)).attestations.routing).toEqual({ provider: "oa-eu-zr", privacy_tier: "zero_retention" });
    const overridden = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "override" }], svc_privacy_tier: "standard" } as never).withResponse();
    expect((await receiptFromHeaders(g, overridden.response.headers)).attestations.routing.privacy_tier).toBe("standard");
    // Rotation keeps the tier.
    const rotated = await g.h.json("POST", `/v1/keys/${minted.body.id}/rotate`, { headers: session });
    expect(rotated.body.privacy_tier).toBe("zero_retention");
  });

  test("svc_region pins the serving region; a region nobody serves is 403 region_unavailable; a malformed one is 400", async () => {
    const eu = await g.post("/v1/chat/completions", ask("from europe", { svc_region: "eu" }));
    expect((await receiptFromHeaders(g, eu.headers)).attestations.routing).toEqual({ provider: "oa-eu-zr", privacy_tier: "standard", region: "eu" });
    const ap = await json(await g.post("/v1/chat/completions", ask("x", { svc_region: "ap" })));
    expect(ap.status).toBe(403);
    expect(ap.body.error).toMatchObject({ type: "region_unavailable", region: "ap", regions_offered: ["eu", "us"] });
    const bad = await json(await g.post("/v1/chat/completions", ask("x", { svc_region: "Not A Region" })));
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("svc_region");
  });
});

describe("svc_scrub", () => {
  const secrets = [
    "my key is sk-proj-Abcdefghij0123456789xyz",
    "mail me at jane.doe@example.com",
    "card 4111 1111 1111 1111 exp 12/29",
    "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  ].join("; ");

  test("chat: the upstream receives the redacted prompt; the receipt carries the count, not the text", async () => {
    const res = await g.post("/v1/chat/completions", ask(secrets, { svc_scrub: true }));
    expect(res.status).toBe(200);
    const sent = g.stub.last("/v1/chat/completions")!.body.messages[0].content as string;
    for (const leaked of ["sk-proj-Abcdefghij0123456789xyz", "jane.doe@example.com", "4111 1111 1111 1111", "eyJhbGciOiJIUzI1NiJ9"]) expect(sent).not.toContain(leaked);
    expect(sent).toContain("[REDACTED:api_key]");
    expect(sent).toContain("[REDACTED:email]");
    expect(sent).toContain("[REDACTED:card_number]");
    expect(sent).toContain("[REDACTED:jwt]");
    const payload = await receiptFromHeaders(g, res.headers);
    expect(payload.units.scrubbed).toBe(4);
    expect(JSON.stringify(payload)).not.toContain("example.com");
  });

  test("messages (system prompt too), streaming, and embeddings are scrubbed the same way; without svc_scrub nothing is touched", async () => {
    const raw = await (
      await g.post("/v1/messages", { model: "claude-test", max_tokens: 50, stream: true, system: "Owner: bob@example.org", messages: [{ role: "user", content: "call +44 20 7946 0958" }], svc_scrub: true })
    ).text();
    const sent = g.stub.last("/v1/messages")!.body;
    expect(sent.system).toBe("Owner: [REDACTED:email]");
    expect(sent.messages[0].content).toBe("call [REDACTED:phone]");
    expect((await verifyReceipt(g, receiptEventOf(raw).receipt, receiptEventOf(raw).signature)).units.scrubbed).toBe(2);

    const emb = await g.post("/v1/embeddings", { model: "embed-test", input: ["AKIAIOSFODNN7EXAMPLE is a key", "clean text"], svc_scrub: true });
    expect(g.stub.last("/v1/embeddings")!.body.input).toEqual(["[REDACTED:api_key] is a key", "clean text"]);
    expect((await receiptFromHeaders(g, emb.headers)).units.scrubbed).toBe(1);

    const untouched = await g.post("/v1/chat/completions", ask("mail jane.doe@example.com"));
    expect(g.stub.last("/v1/chat/completions")!.body.messages[0].content).toBe("mail jane.doe@example.com");
    expect((await receiptFromHeaders(g, untouched.headers)).units.scrubbed).toBeUndefined();
  });

  test("svc_scrub must be a boolean", async () => {
    const bad = await json(await g.post("/v1/chat/completions", ask("x", { svc_scrub: "yes" })));
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("svc_scrub");
  });
});

describe("svc_run_id and svc_context", () => {
  test("svc_run_id chains the receipts into a run (GET /v1/runs/:id lists them in order)", async () => {
    const run = `run-${crypto.randomUUID()}`;
    const ids: string[] = [];
    for (const [path, body] of [
      ["/v1/chat/completions", ask("step one", { svc_run_id: run })],
      ["/v1/messages", { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "step two" }], svc_run_id: run, stream: true }],
    ] as const) {
      const res = await g.post(path, body);
      if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
        const r = receiptEventOf(await res.text());
        expect(r.run_id).toBe(run);
        ids.push(r.receipt_id);
      } else {
        expect(res.headers.get("x-svc-run-id")).toBe(run);
        expect((await receiptFromHeaders(g, res.headers)).run_id).toBe(run);
        ids.push(res.headers.get("x-svc-receipt-id")!);
      }
    }
    const listed = await g.h.json("GET", `/v1/runs/${encodeURIComponent(run)}`, { headers: { authorization: `Bearer ${g.sessionToken}` } });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain(ids[0]!);
    expect(JSON.stringify(listed.body)).toContain(ids[1]!);
    const bad = await json(await g.post("/v1/chat/completions", ask("x", { svc_run_id: "" })));
    expect(bad.body.error.param).toBe("svc_run_id");
  });

  test("svc_context: each document fingerprinted (sha256), their Merkle root and count on the receipt — never the content; accepted on /v1/messages", async () => {
    const docs = ["The first retrieved document.", { id: "doc-2", content: "The second, as an object." }];
    const digests = ["The first retrieved document.", "The second, as an object."].map((d) => createHash("sha256").update(d).digest());
    for (const [path, body] of [
      ["/v1/chat/completions", ask("answer from context", { svc_context: docs })],
      ["/v1/messages", { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "answer from context" }], svc_context: docs }],
    ] as const) {
      const res = await g.post(path, body);
      expect(res.status).toBe(200);
      const receipt = res.headers.get("x-svc-receipt")!;
      const payload = await receiptFromHeaders(g, res.headers);
      expect(payload.attestations.context).toEqual({
        alg: "sha256; merkle: RFC 6962 over the 32-byte digests in declared order",
        count: 2,
        merkle_root: MerkleTree.of(digests).root.toString("hex"),
        fingerprints: digests.map((d) => d.toString("hex")),
      });
      const decoded = Buffer.from(receipt, "base64url").toString("utf8");
      expect(decoded).not.toContain("retrieved document");
      expect(decoded).not.toContain("answer from context");
      expect(decoded).not.toContain("reply to");
      // the documents are declarations, not prompt: nothing of them goes upstream
      expect(JSON.stringify(g.stub.requests.at(-1)!.body)).not.toContain("retrieved document");
    }
    for (const bad of [[], [42], "a string", Array.from({ length: 65 }, () => "d")]) {
      const res = await json(await g.post("/v1/chat/completions", ask("x", { svc_context: bad })));
      expect(res.status).toBe(400);
      expect(res.body.error.param).toStartWith("svc_context");
    }
  });

  test("an unknown svc_ field is a 400 naming it, and nothing is sent upstream", async () => {
    const before = g.stub.requests.length;
    const res = await json(await g.post("/v1/chat/completions", ask("x", { svc_regoin: "eu", svc_scrubb: true })));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("svc_regoin, svc_scrubb");
    expect(g.stub.requests.length).toBe(before);
  });
});
