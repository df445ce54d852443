import { afterEach, describe, expect, test } from "bun:test";
import { createAccount, setSuspended } from "../../../src/domains/accounts/service.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { bearer, type Harness, makeHarness, METRICS_TOKEN } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

describe("GET /metrics", () => {
  test("404 when no metrics token is configured, 401 on a wrong one", async () => {
    h = makeHarness();
    expect((await h.request("GET", "/metrics", { headers: bearer(METRICS_TOKEN) })).status).toBe(404);
    h.close();
    h = makeHarness({ metrics: true });
    expect((await h.request("GET", "/metrics")).status).toBe(401);
    expect((await h.request("GET", "/metrics", { headers: bearer("nope") })).status).toBe(401);
  });

  test("Prometheus text with aggregate gauges and request counters, nothing per account", async () => {
    h = makeHarness({ metrics: true });
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    const a = createAccount(h.ctx);
    createAccount(h.ctx);
    setSuspended(h.ctx, { accountId: a.id, suspended: true, actor: "cli" });
    h.ctx.ledger.credit(a.id, 42);
    await h.request("GET", "/v1/status");
    await h.request("GET", "/v1/nowhere");
    await Bun.sleep(1); // request counters are recorded after the response is sent
    const res = await h.request("GET", "/metrics", { headers: bearer(METRICS_TOKEN) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(text).toContain(`svc_build_info{version="${h.ctx.version}"} 1`);
    expect(text).toContain('svc_accounts{state="active"} 1');
    expect(text).toContain('svc_accounts{state="suspended"} 1');
    expect(text).toContain('svc_credit_micro_usd{kind="balance"} 42');
    expect(text).toContain('svc_uptime_ratio{window="24h"} 1');
    expect(text).toContain('svc_http_requests_total{method="GET",route="/v1/status",status="200"} 1');
    expect(text).toContain('svc_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toMatch(/svc_jobs\{status="pending"\} \d+/);
    expect(text).not.toContain(a.id);
  });
});
