/**
 * A receipt references a source set: `svc_source_set` on an inference request stamps the set's
 * id and fingerprint on the call's signed receipt (attestations.source_set), checked with viem.
 * Only the caller's own account's sets can be cited; a refusal sends nothing upstream and bills
 * nothing.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { type Gateway, receiptFromHeaders, startGateway, USD, usageEvents } from "../inference/inference-support.ts";

const SOURCES = [
  { url: "https://example.org/a", label: "A", kind: "web" },
  { sha256: "c".repeat(64), label: "B", kind: "dataset" },
];

async function aSet(g: Gateway, session = g.sessionToken) {
  const r = await g.h.json("POST", "/v1/sources/sets", { headers: bearer(session), body: { name: "cited", sources: SOURCES } });
  expect(r.status).toBe(201);
  return r.body;
}

const chat = (g: Gateway, extra: Record<string, unknown>, key = g.key) =>
  g.h.request("POST", "/v1/chat/completions", { headers: bearer(key), body: { model: "gpt-test", messages: [{ role: "user", content: "summarise the sources" }], ...extra } });

describe("svc_source_set", () => {
  test("stamps the set's id, fingerprint and count on the signed receipt, on chat completions and messages alike", async () => {
    const g = await startGateway();
    const set = await aSet(g);
    const expected = { id: set.id, fingerprint: set.fingerprint, count: 2, alg: set.fingerprint_alg };

    const res = await chat(g, { svc_source_set: set.id });
    expect(res.status).toBe(200);
    const payload = await receiptFromHeaders(g, res.headers);
    expect(payload.attestations.source_set).toEqual(expected);
    // The fingerprint on the receipt is the one anyone recomputes from the entries.
    const canonical = `[${SOURCES.map((s) => `{${Object.keys(s).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify((s as any)[k])}`).join(",")}}`).join(",")}]`;
    expect(payload.attestations.source_set.fingerprint).toBe(createHash("sha256").update(canonical).digest("hex"));
    // svc's own field never reaches the upstream.
    expect(g.stub.requests.at(-1)!.body).not.toHaveProperty("svc_source_set");

    const msg = await g.h.request("POST", "/v1/messages", {
      headers: bearer(g.key),
      body: { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "hi" }], svc_source_set: set.id },
    });
    expect(msg.status).toBe(200);
    expect((await receiptFromHeaders(g, msg.headers)).attestations.source_set).toEqual(expected);

    // Without the field the receipt carries no such group.
    expect((await receiptFromHeaders(g, (await chat(g, {})).headers)).attestations).not.toHaveProperty("source_set");
  });

  test("another account's set, an unknown or a deleted one is refused 404 naming the field; nothing is sent or billed", async () => {
    const g = await startGateway();
    const other = accountWithSession(g.h.ctx);
    g.h.ctx.ledger.credit(other.account.id, 10 * USD, { type: "deposit" });
    const theirs = await aSet(g, other.session.token);
    const mine = await aSet(g);
    await g.h.json("DELETE", `/v1/sources/sets/${mine.id}`, { headers: bearer(g.sessionToken) });

    const sent = g.stub.requests.length;
    const billed = usageEvents(g).length;
    for (const id of [theirs.id, "sset_unknown", mine.id]) {
      const r = await chat(g, { svc_source_set: id });
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).error).toMatchObject({ type: "source_set_not_found", param: "svc_source_set" });
    }
    expect(g.stub.requests.length).toBe(sent);
    expect(usageEvents(g).length).toBe(billed);

    // The owner's key can cite it.
    const key = apiKeyFor(g.h.ctx, other.account.id);
    const ok = await chat(g, { svc_source_set: theirs.id }, key.token);
    expect(ok.status).toBe(200);
    expect((await receiptFromHeaders(g, ok.headers)).attestations.source_set.id).toBe(theirs.id);
  });

  test("a value that is not a set id is refused 400 naming svc_source_set", async () => {
    const g = await startGateway();
    for (const bad of [42, "", ["sset_x"], "x".repeat(101)]) {
      const r = await chat(g, { svc_source_set: bad });
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.param).toBe("svc_source_set");
    }
  });
});
