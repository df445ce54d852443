/**
 * The receipt routes as the OpenAPI document declares them: a receipt carrying attestations and
 * every kind of unit still matches its (closed) payload schema on the owner's and the public
 * view (the harness checks each response against the document); the badge is declared as SVG;
 * verify documents the body it expects while taking any JSON, and declares both answers.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

async function document(): Promise<any> {
  return (await h.app.handle(new Request("http://svc.test/openapi.json"))).json();
}

describe("the receipt routes in the OpenAPI document", () => {
  test("a receipt with attestations and mixed units matches the declared payload, owner's and shared views alike", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 1_000_000, { type: "deposit" });
    const auth = bearer(session.token);
    const r = h.ctx.meter.reserve({ accountId: account.id, keyId: null, amount: 500, kind: "inference", resource: "gpt-x", runId: "run-a" });
    const units = {
      input_tokens: 12,
      cached: true,
      finish_reason: "stop",
      ratio: 0.5, // a float: left out of the receipt
      attestations: { context: { root: "ab".repeat(32), documents: ["d1", "d2"], count: 2 }, routing: { tier: "private", eu_only: true } },
    };
    const id = h.ctx.meter.settle(r, 400, { units }).receipt!.id;

    const own = await h.json("GET", `/v1/receipts/${id}`, { headers: auth });
    expect(own.status).toBe(200);
    expect(own.body.payload.attestations).toEqual(units.attestations);
    expect(own.body.payload.units).toEqual({ input_tokens: 12, cached: true, finish_reason: "stop" });
    expect((await h.json("POST", `/v1/receipts/${id}/share`, { headers: auth })).status).toBe(200);
    const shared = await h.json("GET", `/v1/receipts/shared/${id}`);
    expect(shared.status).toBe(200);
    expect(shared.body.payload).toEqual(own.body.payload);
    const badge = await h.request("GET", `/v1/receipts/${id}/badge.svg`);
    expect(badge.headers.get("content-type")).toStartWith("image/svg+xml");
  });

  test("badge: image/svg+xml; verify: a documented body, any JSON taken, valid and invalid answers declared", async () => {
    h = makeHarness();
    const doc = await document();
    expect(Object.keys(doc.paths["/v1/receipts/{id}/badge.svg"].get.responses["200"].content)).toEqual(["image/svg+xml"]);
    const verify = doc.paths["/v1/receipts/verify"].post;
    expect(verify.requestBody.content["application/json"].schema.required).toEqual(["receipt", "signature"]);
    const answers = verify.responses["200"].content["application/json"].schema.anyOf;
    expect(answers.map((a: any) => a.properties.valid.const)).toEqual([true, false]);
    for (const body of [null, [], "x", 7, { receipt: 7 }]) {
      const r = await h.json("POST", "/v1/receipts/verify", { body });
      expect(r.status).toBe(200);
      expect(r.body.valid).toBe(false);
    }
  });
});
