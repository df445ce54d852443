/**
 * Launches tests' world: a svc with launches on (or as a test wants it), a stand-in custodian
 * (Bun.serve on 127.0.0.1, port 0) whose reserve figure and health the test sets, accounts with
 * sessions, and helpers for the routes.
 */
import { expect } from "bun:test";
import type { Config } from "../../../src/config.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const CUSTODIAN_CREDENTIAL = "cust-secret-123";

export interface Custodian {
  url: string;
  /** The reserve figure it reports (decimal text or number); set to change it. */
  figure: string | number;
  /** When false it answers 503. */
  up: boolean;
  /** Requests it has seen, with whether they carried the credential. */
  seen: { authorized: boolean }[];
  stop(): void;
}

export function startCustodian(): Custodian {
  const state = { figure: "1500" as string | number, up: true, seen: [] as { authorized: boolean }[] };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const authorized = req.headers.get("authorization") === `Bearer ${CUSTODIAN_CREDENTIAL}`;
      state.seen.push({ authorized });
      if (!state.up) return new Response("down", { status: 503 });
      if (!authorized) return new Response("no", { status: 401 });
      return Response.json({ as_of: "2026-11-21", reserves: { amount: state.figure, currency: "USD" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    get figure() {
      return state.figure;
    },
    set figure(v) {
      state.figure = v;
    },
    get up() {
      return state.up;
    },
    set up(v) {
      state.up = v;
    },
    seen: state.seen,
    stop: () => void server.stop(true),
  };
}

export interface Tenant {
  accountId: string;
  auth: { headers: Record<string, string> };
}

export function tenant(h: Harness): Tenant {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: { headers: bearer(session.token) } };
}

export function launchesHarness(extra: (c: Config) => void = () => {}): Harness {
  return makeHarness({
    config: (c) => {
      c.webhooks.allow_private = true;
      c.launches.enabled = true;
      c.launches.mint_authorizations_enabled = true;
      c.launches.rpc_timeout_ms = 400;
      extra(c);
    },
  });
}

export const launchBody = (custodian: Custodian, over: Record<string, unknown> = {}) => ({
  name: "Gold Dollar",
  custodian: { kind: "custodian", url: `${custodian.url}/v1/reserves?account=7`, credential: CUSTODIAN_CREDENTIAL, pointer: "/reserves/amount", label: "Acme Trust" },
  decimals: 6,
  interval_s: 3600,
  spec: { tools: ["distribute", "nav"], passthrough: true, terms: "1 token = 1 USD held at Acme Trust" },
  ...over,
});

export const call = (h: Harness, who: Tenant | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  h.json(method, path, { headers: { ...(who?.auth.headers ?? {}), ...headers }, ...(body === undefined ? {} : { body }) });

export async function createLaunch(h: Harness, who: Tenant, custodian: Custodian, over: Record<string, unknown> = {}) {
  const r = await call(h, who, "POST", "/v1/launches", launchBody(custodian, over));
  expect(r.status).toBe(201);
  return r.body;
}
