/**
 * What the OpenAPI document says about /v1/usage beside what the harness already checks on
 * every response: one 200 with two media types for the event list, the SSE feed's type, header
 * and 400, and statement bodies whose time pattern says what the handler accepts (no more, no
 * less: a space for an offset's "+" is still taken).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { TIME_ERROR } from "../../../src/domains/usage/period.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const DAY = 86_400_000;

async function document(): Promise<any> {
  return (await h.app.handle(new Request("http://svc.test/openapi.json"))).json();
}

describe("the usage routes in the OpenAPI document", () => {
  test("events: JSON and CSV on one 200 with X-Next-Cursor; stream: text/event-stream, Last-Event-ID and its 400", async () => {
    h = makeHarness();
    const doc = await document();
    const events = doc.paths["/v1/usage/events"].get;
    expect(Object.keys(events.responses["200"].content).sort()).toEqual(["application/json", "text/csv"]);
    expect(events.responses["200"].headers["X-Next-Cursor"]).toBeDefined();
    const page = events.responses["200"].content["application/json"].schema;
    expect(page.required.sort()).toEqual(["events", "next_cursor"]);
    expect(page.additionalProperties).toBe(false);
    expect(events.parameters.find((p: any) => p.name === "format").schema.enum).toEqual(["json", "csv"]);
    const stream = doc.paths["/v1/usage/stream"].get;
    expect(Object.keys(stream.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(stream.responses["400"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(stream.parameters).toEqual([expect.objectContaining({ in: "header", name: "last-event-id", required: false })]);
  });

  test("statement: the body's time pattern refuses what the handler refuses, with its message, and keeps what it keeps", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const auth = bearer(session.token);
    const doc = await document();
    const body = doc.paths["/v1/usage/statement"].post.requestBody.content["application/json"].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.from.pattern).toBe(body.properties.to.pattern);
    const statement = (b: Record<string, unknown>) => h.json("POST", "/v1/usage/statement", { headers: auth, body: b });
    const to = new Date(h.clock.now() - DAY).toISOString();
    for (const from of ["2026-11-01", "2026-11-01T00:00:00", "last week"]) {
      const r = await statement({ from, to });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: "invalid_request", param: "from", message: `from: ${TIME_ERROR}` });
    }
    // Lower-case separators and an offset whose "+" became a space are instants to the handler, so to the schema too.
    const ok = await statement({ from: "2026-11-01t00:00:00 01:00", to });
    expect(ok.status).toBe(200);
    expect(ok.body.payload.from).toBe("2026-10-31T23:00:00.000Z");
  });
});
