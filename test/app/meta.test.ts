import { afterEach, describe, expect, test } from "bun:test";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

/** (METHOD path) pairs from the OpenAPI document, in Elysia's :param form. */
function documented(doc: any): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    // A trailing {path} is a route's rest-of-path wildcard (*); other {name}s are :name.
    for (const method of Object.keys(ops)) out.push(`${method.toUpperCase()} ${path.replace(/\/\{path\}$/, "/*").replace(/\{([^}]+)\}/g, ":$1")}`);
  }
  return out.sort();
}

const mounted = (h: Harness) => h.app.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`).sort();

describe("root routes", () => {
  test("GET / is the banner: name, version, signer address, links", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "svc", version: h.ctx.version, signer: h.ctx.signer.address });
    expect(r.body.signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(r.body.links.openapi).toBe("http://127.0.0.1:8080/openapi.json");
    expect(r.body.links.status).toBe("http://127.0.0.1:8080/v1/status");
  });

  test("GET /healthz answers ok as plain text", async () => {
    h = makeHarness();
    const res = await h.request("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    expect(res.headers.get("content-type")).toContain("text/plain");
  });

  test("unknown paths answer 404 in the one error shape", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/v1/nope");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { type: "not_found", message: "no route for GET /v1/nope" } });
  });
});

describe("OpenAPI 3.1 document", () => {
  test("lists exactly the mounted routes, at both paths, with the bare origin as server", async () => {
    h = makeHarness({ admin: true, metrics: true, config: (c) => (c.public_url = "https://gw.example.com") });
    const a = await h.json("GET", "/openapi.json");
    const b = await h.json("GET", "/v1/openapi.json");
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(a.body.openapi).toBe("3.1.0");
    expect(a.body.servers).toEqual([{ url: "https://gw.example.com" }]);
    expect(documented(a.body)).toEqual(mounted(h));
    for (const route of ["GET /", "GET /healthz", "GET /openapi.json", "GET /v1/openapi.json", "GET /v1/status", "GET /metrics", "GET /v1/admin/metrics", "POST /v1/admin/accounts/suspend", "POST /v1/admin/denylist"]) {
      expect(documented(a.body)).toContain(route);
    }
  });

  test("an unconfigured group is absent from the document", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/openapi.json");
    const routes = documented(r.body);
    expect(routes).toEqual(mounted(h));
    expect(routes.some((x) => x.includes("/v1/admin"))).toBe(false);
    expect(routes).not.toContain("GET /metrics");
  });

  test("request bodies carry their JSON schema", async () => {
    h = makeHarness({ admin: true });
    const r = await h.json("GET", "/openapi.json");
    const schema = r.body.paths["/v1/admin/accounts/suspend"].post.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["account_id", "suspended"]);
    expect(schema.properties.suspended.type).toBe("boolean");
  });
});

describe("the root routes' own entries", () => {
  test("GET /healthz is declared text/plain \"ok\"; the documents and the banner declare their JSON shapes", async () => {
    h = makeHarness();
    const doc = (await h.json("GET", "/openapi.json")).body;
    expect(doc.paths["/healthz"].get.responses["200"].content).toEqual({ "text/plain": { schema: expect.objectContaining({ type: "string", const: "ok" }) } });
    for (const path of ["/openapi.json", "/v1/openapi.json"]) {
      const schema = doc.paths[path].get.responses["200"].content["application/json"].schema;
      expect(schema.required).toEqual(["openapi", "info", "servers", "paths", "components"]);
      expect(schema.properties.openapi.const).toBe("3.1.0");
    }
    const banner = doc.paths["/"].get.responses["200"].content["application/json"].schema;
    expect(banner.additionalProperties).toBe(false);
    expect(Object.keys(banner.properties.links.properties)).toEqual(["openapi", "status", "health"]);
  });
});
