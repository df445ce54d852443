/**
 * A hostile client against every operation of the OpenAPI document (every optional group
 * mounted), through HTTP with valid credentials of the route's class so handlers run: wrong
 * types and hostile values in every body field, hostile path and query parameters, bodies that
 * are not what the route takes, deep and wide JSON. Seeded and bounded (a fixed number of
 * requests per operation), so it runs in seconds and fails the same way twice.
 *
 * No input may produce a 5xx that is not a documented refusal of the deployment's own state
 * (501 not enabled, 502/503/504 upstream or configuration); and, through the harness, every
 * answer must be one the operation declares, in the declared shape.
 */
import { afterAll, expect, test } from "bun:test";
import { mintKey } from "../../src/domains/keys/service.ts";
import { accountWithSession } from "../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, makeHarness, METRICS_TOKEN } from "../support/harness.ts";

type Schema = Record<string, unknown>;
type Operation = {
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; schema?: Schema; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};

const SEED = 20261124;
/** Requests per operation: the document's ~100 operations make this a few thousand requests. */
const PER_OPERATION = 24;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  "",
  "x".repeat(10_000),
  "\u0000\u001f\u202e\ud83d\ude00",
  "../../etc/passwd",
  "'; DROP TABLE accounts; --",
  "1e308",
  "0x",
  [],
  [null, 1, "a", {}],
  {},
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{}}}'),
];

const HOSTILE_SEGMENTS = ["x", "0", "-1", "%00", "..%2F..%2Fsvc.db", "%F0%9F%98%80", "a".repeat(2000), "%27%20OR%201%3D1", "key_" + "0".repeat(64), "%ZZ"];
const HOSTILE_QUERY = ["", "-1", "0", "1e308", "abc", "%00", "9".repeat(400), "null", "[]", "true"];

/** Strings a cooperative client might send, tried in order against a field's pattern. */
const CANDIDATE_STRINGS = [
  "x",
  "fuzz-name",
  `0x${"ab".repeat(20)}`,
  "ab".repeat(32),
  `0x${"ab".repeat(32)}`,
  "https://example.com/hook",
  "2026-11-21T12:00:00Z",
  "inference",
  "key_0123456789abcdefghij",
];

const nest = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

/** A plausible value for a schema: what a cooperative client would send. */
function sample(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length) return sample(options.find((o) => o.type !== "null") ?? options[0], depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  switch (type) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "string":
      if (schema.format === "date-time") return new Date(Date.UTC(2026, 10, 21, 12)).toISOString();
      if (typeof schema.pattern === "string") {
        const pattern = new RegExp(schema.pattern);
        const fit = CANDIDATE_STRINGS.find((c) => pattern.test(c));
        if (fit) return fit;
      }
      return "x".repeat(Math.max(1, Number(schema.minLength ?? 1)));
    case "array":
      return [sample(schema.items as Schema, depth + 1)];
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const name of (schema.required ?? []) as string[]) out[name] = sample(props[name], depth + 1);
      return out;
    }
    default:
      return {};
  }
}

interface Attempt {
  label: string;
  path: string;
  body?: string;
  contentType?: string;
}

/** The hostile requests for one operation. */
function attempts(method: string, template: string, op: Operation, rand: () => number): Attempt[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const fill = (hostile: boolean) => template.replace(/\{[^}]+\}/g, () => (hostile ? pick(HOSTILE_SEGMENTS) : "x"));
  const query = (op.parameters ?? []).filter((p) => p.in === "query");
  const withQuery = (path: string) => (query.length ? `${path}?${query.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(pick(HOSTILE_QUERY))}`).join("&")}` : path);
  const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
  const base = sample(bodySchema);
  const out: Attempt[] = [];
  const takesBody = ["POST", "PUT", "PATCH", "DELETE"].includes(method);
  for (let i = 0; out.length < PER_OPERATION; i++) {
    const kind = i % 8;
    const path = withQuery(fill(i % 2 === 1));
    if (!takesBody || kind === 0) {
      out.push({ label: "parameters", path });
      continue;
    }
    if (kind === 1) {
      out.push({ label: "raw body", path, body: pick(["null", "[]", "1", '"s"', "{", '{"a":}', "\u0000", nest(50), "{}".repeat(3)]) });
    } else if (kind === 2) {
      out.push({ label: "too deep", path, body: `{"x":${nest(5000)}}` });
    } else if (kind === 3) {
      out.push({ label: "content type", path, body: "a=1&b=2", contentType: pick(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", "application/octet-stream", "application/json; charset=latin1"]) });
    } else if (base && typeof base === "object" && !Array.isArray(base) && Object.keys(base).length) {
      const fields = Object.keys(base as object);
      const field = pick(fields);
      out.push({ label: `field ${field}`, path, body: JSON.stringify({ ...(base as object), [field]: pick(HOSTILE_VALUES) }) });
    } else {
      out.push({ label: "extra fields", path, body: JSON.stringify({ ...(base && typeof base === "object" ? base : {}), surprise: pick(HOSTILE_VALUES), constructor: 1 }) });
    }
  }
  return out;
}

const h = makeHarness({
  admin: true,
  metrics: true,
  config: (c) => {
    c.passkeys.rp_id = "svc.test";
    c.passkeys.origin = "http://svc.test";
    c.assistant.model = "fuzz-model";
    c.rate_limit.public_per_minute = 0;
  },
});
afterAll(() => h.close());

test("no request to any operation answers an undocumented 5xx, and every answer is declared", async () => {
  const doc = (await (await h.app.handle(new Request("http://svc.test/openapi.json"))).json()) as { paths: Record<string, Record<string, Operation>> };
  const rand = prng(SEED);
  const failures: string[] = [];
  let requests = 0;
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [lower, op] of Object.entries(ops)) {
      const method = lower.toUpperCase();
      // Fresh credentials per operation: a logout or a revocation among the attempts must not blind the rest.
      const { account, session } = accountWithSession(h.ctx);
      h.ctx.ledger.credit(account.id, 1_000_000);
      const key = mintKey(h.ctx, { accountId: account.id }).key;
      const scheme = Object.keys(op.security?.[0] ?? {})[0];
      const auth = { apiKey: bearer(key), session: bearer(session.token), admin: bearer(ADMIN_TOKEN), metrics: bearer(METRICS_TOKEN) }[scheme ?? ""] ?? {};
      for (const attempt of attempts(method, template, op, rand)) {
        requests++;
        let res: Response;
        try {
          res = await h.request(method, attempt.path, {
            raw: attempt.body,
            headers: { ...auth, ...(attempt.body !== undefined ? { "content-type": attempt.contentType ?? "application/json" } : {}) },
          });
        } catch (err) {
          failures.push(`${method} ${attempt.path.slice(0, 120)} [${attempt.label}]: ${(err as Error).message.split("\n")[0]}`);
          continue;
        }
        if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
          await res.body?.cancel();
          continue;
        }
        const text = await res.text();
        if (res.status >= 500) {
          const type = (() => {
            try {
              return (JSON.parse(text) as { error?: { type?: string } }).error?.type;
            } catch {
              return undefined;
            }
          })();
          if (res.status === 500 || type === "internal_error" || type === undefined) failures.push(`${method} ${attempt.path.slice(0, 120)} [${attempt.label}]: ${res.status} ${text.slice(0, 200)}`);
        }
      }
    }
  }
  expect(requests).toBeGreaterThan(1500);
  expect(failures).toEqual([]);
});

test("hostile credentials, cookies and headers answer 4xx on every class of route", async () => {
  const headers: Record<string, string>[] = [
    { authorization: "Bearer" },
    { authorization: "Basic dXNlcjpwYXNz" },
    { authorization: `Bearer ${"sk-svc_".padEnd(5000, "x")}` },
    { authorization: "Bearer sess_\u00ff\u00fe" },
    { authorization: "Bearer nk-svc_x" },
    { authorization: "Bearer  sk-svc_x  extra" },
    { cookie: "svc_session=; svc_session=sess_x" },
    { cookie: `svc_session=${"%".repeat(3000)}` },
    { "x-payment": "not-base64!!" },
    { "x-payment": btoa(JSON.stringify({ x402Version: 1, scheme: "exact", network: "nowhere", payload: { nested: "[".repeat(100) } })) },
    { "payment-signature": btoa("[".repeat(5000)) },
    { "x-forwarded-for": "999.999.999.999, ::::" },
    { "last-event-id": "%00".repeat(100) },
  ];
  const routes: [string, string][] = [
    ["GET", "/v1/keys"],
    ["GET", "/v1/credit"],
    ["POST", "/v1/chat/completions"],
    ["GET", "/v1/usage/stream"],
    ["GET", "/v1/admin/metrics"],
    ["GET", "/metrics"],
    ["POST", "/v1/auth/nonce"],
  ];
  const failures: string[] = [];
  for (const [method, path] of routes) {
    for (const extra of headers) {
      const res = await h.request(method, path, { headers: { ...extra, ...(method === "POST" ? { "content-type": "application/json" } : {}) }, raw: method === "POST" ? "{}" : undefined });
      if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
      else await res.text();
      if (res.status >= 500) failures.push(`${method} ${path} ${JSON.stringify(extra).slice(0, 80)}: ${res.status}`);
    }
  }
  expect(failures).toEqual([]);
});
