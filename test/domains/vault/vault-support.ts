/**
 * The vault tests' shared set-up: a harness whose public rate limit is out of the way (the tests
 * read public routes many times), tenants with sessions, and short helpers over the routes.
 */
import { afterEach, expect } from "bun:test";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const USD = 1_000_000;

export interface Tenant {
  h: Harness;
  accountId: string;
  headers: Record<string, string>;
}

export function vaultHarness(): Harness {
  return makeHarness({
    config: (c) => {
      c.rate_limit.public_burst = 100_000;
      c.webhooks.allow_private = true;
    },
  });
}

export function tenant(h: Harness): Tenant {
  const { account, session } = accountWithSession(h.ctx);
  return { h, accountId: account.id, headers: bearer(session.token) };
}

export const call = (t: Tenant, method: string, path: string, body?: unknown) => t.h.json(method, path, { headers: t.headers, body });

export async function made(t: Tenant, method: string, path: string, body?: unknown, status = 201) {
  const r = await call(t, method, path, body);
  expect({ path, status: r.status, body: r.status === status ? null : r.body }).toEqual({ path, status, body: null });
  return r.body;
}

export const newAsset = (t: Tenant, body: Record<string, unknown> = {}) => made(t, "POST", "/v1/vault/assets", { name: "Harbour Fund I", total_micro_usd: 1000 * USD, ...body });

export const newHolder = (t: Tenant, assetId: string, body: Record<string, unknown> = {}) =>
  made(t, "POST", `/v1/vault/assets/${assetId}/holders`, { name: "Ada", ...body });

export const wallet = () => privateKeyToAccount(generatePrivateKey());

/** Every key and value of a JSON value, flattened, for "says no amount" checks. */
export function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keysOf(v, out);
    }
  }
  return out;
}

/**
 * A fresh svc per test, closed after it: call once at the top of a test file; the returned
 * setUp() makes the svc and two tenants on it.
 */
export function vaultPerTest() {
  let h: Harness | undefined;
  afterEach(() => {
    h?.close();
    h = undefined;
  });
  return () => {
    h = vaultHarness();
    return { h, a: tenant(h), b: tenant(h) };
  };
}
