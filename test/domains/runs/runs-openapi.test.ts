/**
 * /v1/runs as the OpenAPI document declares it: the audit's framework is a documented closed set
 * whose check stays the handler's (its 400 names `framework`; an empty value maps both), and the
 * proof embeds the anchors' own block schema, one closed shape per backend.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

describe("the run routes in the OpenAPI document", () => {
  test("audit: framework documented as eu_ai_act or soc2; empty maps both, another is the handler's 400", async () => {
    h = makeHarness();
    const doc: any = await (await h.app.handle(new Request("http://svc.test/openapi.json"))).json();
    const audit = doc.paths["/v1/runs/{id}/audit"].post;
    expect(audit.parameters.find((p: any) => p.name === "framework").schema.enum).toEqual(["eu_ai_act", "soc2"]);
    const anchors = doc.paths["/v1/runs/{id}/proof"].post.responses["200"].content["application/json"].schema.properties.anchor.properties.anchors.items.anyOf;
    expect(anchors.map((a: any) => [a.properties.backend.const, a.additionalProperties])).toEqual([["log", false], ["evm", false]]);

    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 1_000_000, { type: "deposit" });
    const auth = bearer(session.token);
    const r = h.ctx.meter.reserve({ accountId: account.id, keyId: null, amount: 10, kind: "inference", resource: "m", runId: "r" });
    h.ctx.meter.settle(r, 10);
    const both = await h.json("POST", "/v1/runs/r/audit?framework=", { headers: auth });
    expect(both.status).toBe(200);
    expect(both.body.frameworks.map((f: any) => f.framework)).toEqual(["eu_ai_act", "soc2"]);
    const bad = await h.json("POST", "/v1/runs/r/audit?framework=SOC2", { headers: auth });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("framework");
  });
});
