import { afterEach, expect, test } from "bun:test";
import { PROMETHEUS_MEDIA_TYPE } from "../../../src/domains/metrics/models.ts";
import { bearer, type Harness, makeHarness, METRICS_TOKEN } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

test("GET /metrics is documented as Prometheus text 0.0.4, and served as exactly that", async () => {
  h = makeHarness({ metrics: true });
  const doc = (await h.json("GET", "/openapi.json")).body;
  const ok = doc.paths["/metrics"].get.responses["200"];
  expect(Object.keys(ok.content)).toEqual([PROMETHEUS_MEDIA_TYPE]);
  expect(ok.content[PROMETHEUS_MEDIA_TYPE].schema).toEqual({ type: "string" });
  expect(doc.paths["/metrics"].get.security).toEqual([{ metrics: [] }]);
  const res = await h.request("GET", "/metrics", { headers: bearer(METRICS_TOKEN) });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith(`${PROMETHEUS_MEDIA_TYPE};`);
});
