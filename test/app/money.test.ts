/**
 * Money is one type (src/core/schemas.ts MicroUsd): every *_micro_usd field of the OpenAPI
 * document — requests and responses, every route of a deployment with every optional group on —
 * and of the svc.toml schema is an integer bounded by MAX_MICRO_USD. Then through HTTP: amounts
 * above the bound, floats and strings are refused by name, and nothing is stored rounded.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MAX_MICRO_USD, parseMicroUsd, parseUsd } from "../../src/core/money.ts";
import { configSchema } from "../../src/open.ts";
import { accountWithSession } from "../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../support/harness.ts";

type Schema = Record<string, unknown>;

const MONEY = /_micro_usd($|_)/;

/** Every (path, schema) of a property whose name says it carries money, $refs resolved. */
function moneyFields(root: Schema, refs: Record<string, Schema> = {}): [string, Schema][] {
  const out: [string, Schema][] = [];
  const seen = new Set<Schema>();
  const resolve = (s: Schema): Schema => (typeof s.$ref === "string" ? (refs[s.$ref.split("/").pop()!] ?? s) : s);
  const walk = (raw: unknown, at: string) => {
    if (!raw || typeof raw !== "object") return;
    const s = resolve(raw as Schema);
    if (seen.has(s)) return;
    seen.add(s);
    for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      if (MONEY.test(name)) out.push([`${at}.${name}`, resolve(prop)]);
      walk(prop, `${at}.${name}`);
    }
    for (const key of ["items", "additionalProperties", "not"]) walk(s[key], `${at}[]`);
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const [i, sub] of ((s[key] ?? []) as Schema[]).entries()) walk(sub, `${at}|${i}`);
    if (s.patternProperties) for (const sub of Object.values(s.patternProperties as Record<string, Schema>)) walk(sub, `${at}{}`);
  };
  walk(root, "");
  return out;
}

/** Why a money field's schema is not the one money type, or null when it is. An object of amounts (spend per window) is money when every value is. */
function notMoney(schema: Schema): string | null {
  if (schema.type === "object") {
    const values = [...Object.values((schema.properties ?? {}) as Record<string, Schema>), ...(typeof schema.additionalProperties === "object" ? [schema.additionalProperties as Schema] : [])];
    if (!values.length) return "an object with no amounts";
    for (const v of values) {
      const why = notMoney(v);
      if (why) return why;
    }
    return null;
  }
  const variants = (schema.anyOf as Schema[] | undefined)?.filter((v) => v.type !== "null") ?? [schema];
  for (const v of variants) {
    const types = Array.isArray(v.type) ? v.type.filter((t) => t !== "null") : [v.type];
    if (types.length !== 1 || types[0] !== "integer") return `type ${JSON.stringify(v.type ?? v)} (money is an integer)`;
    if (typeof v.maximum !== "number" || v.maximum > MAX_MICRO_USD) return `maximum ${v.maximum} (at most ${MAX_MICRO_USD})`;
    if (typeof v.minimum !== "number" || v.minimum < -MAX_MICRO_USD) return `minimum ${v.minimum}`;
  }
  return null;
}

let h: Harness;
afterEach(() => h?.close());

describe("one money type", () => {
  test("every *_micro_usd field of the OpenAPI document uses it", async () => {
    h = makeHarness({ admin: true, metrics: true, config: (c) => ((c.passkeys.rp_id = "example.com"), (c.passkeys.origin = "https://example.com"), (c.assistant.model = "m")) });
    const doc = (await h.json("GET", "/openapi.json")).body;
    const refs = (doc.components?.schemas ?? {}) as Record<string, Schema>;
    const problems: string[] = [];
    let fields = 0;
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(ops)) {
        const schemas: [string, unknown][] = [];
        for (const p of (op.parameters ?? []) as Schema[]) schemas.push([`param ${p.name}`, { properties: { [String(p.name)]: p.schema } }]);
        for (const [type, media] of Object.entries(((op.requestBody as Schema | undefined)?.content ?? {}) as Record<string, Schema>)) schemas.push([`request ${type}`, media.schema]);
        for (const [status, res] of Object.entries((op.responses ?? {}) as Record<string, Schema>)) {
          for (const media of Object.values(((res as Schema).content ?? {}) as Record<string, Schema>)) schemas.push([`response ${status}`, media.schema]);
        }
        for (const [where, schema] of schemas) {
          for (const [field, s] of moneyFields(schema as Schema, refs)) {
            fields++;
            const why = notMoney(s);
            if (why) problems.push(`${method.toUpperCase()} ${path} ${where}${field}: ${why}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(fields).toBeGreaterThan(15);
  });

  test("every *_micro_usd key of svc.toml uses it", () => {
    const fields = moneyFields(configSchema() as unknown as Schema);
    expect(fields.map(([path]) => path).sort()).toEqual(expect.arrayContaining([".billing.balance_low_micro_usd", ".keys.breaker_micro_usd_per_minute"]));
    expect(fields.filter(([, s]) => notMoney(s)).map(([path, s]) => `${path}: ${notMoney(s)}`)).toEqual([]);
  });

  test("CLI amounts: dollars and micro-USD are bounded and never read loosely", () => {
    expect(parseUsd("1000000000")).toBe(MAX_MICRO_USD);
    expect(() => parseUsd("1000000000.000001")).toThrow(/largest amount/);
    expect(parseMicroUsd(String(MAX_MICRO_USD))).toBe(MAX_MICRO_USD);
    for (const bad of ["1e308", "1.5", "-3", "", String(MAX_MICRO_USD + 1), "0x10"]) expect(() => parseMicroUsd(bad)).toThrow(RangeError);
    expect(() => parseMicroUsd("0", 1)).toThrow(/between 1/);
  });
});

describe("through HTTP", () => {
  test("a key's caps: above the bound, floats, 1e308 and strings are refused by name; the largest amount round-trips exactly", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    for (const field of ["monthly_cap_micro_usd", "breaker_micro_usd_per_minute"]) {
      for (const value of [MAX_MICRO_USD + 1, 1e308, Number.MAX_SAFE_INTEGER + 2, 1.5, "100", -1]) {
        const r = await h.json("POST", "/v1/keys", { headers: bearer(session.token), body: { [field]: value } });
        expect({ field, value, status: r.status, param: r.body.error?.param }).toEqual({ field, value, status: 400, param: field });
      }
    }
    const ok = await h.json("POST", "/v1/keys", { headers: bearer(session.token), body: { monthly_cap_micro_usd: MAX_MICRO_USD, breaker_micro_usd_per_minute: 0 } });
    expect(ok.status).toBe(201);
    const list = await h.request("GET", "/v1/keys", { headers: bearer(session.token) });
    const text = await list.text();
    expect(text).toContain(`"monthly_cap_micro_usd":${MAX_MICRO_USD}`);
    expect(text).not.toMatch(/e\+\d/);
  });
});
