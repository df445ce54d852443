/**
 * NAV tests' world: a svc whose one chain is the devnet (TestUSDT's totalSupply() is the on-chain
 * supply), stand-in price and custodian servers on 127.0.0.1 whose answers a test sets, an account
 * with credit and a "records" key, and the figures recomputed here with BigInt, independently of
 * the area's arithmetic.
 */
import { createHash } from "node:crypto";
import type { Address } from "viem";
import type { Config } from "../../../src/config.ts";
import type { Devnet } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { devnetChain } from "../pay/pay-support.ts";

export const CALC_PRICE = 20_000;
export const USD = 1_000_000;

/** Quote servers: GET /<name> answers {"usd": <quote>} exactly as set, or the status set; /custody needs its bearer token. */
export interface Quotes {
  url: string;
  set(name: string, quote: string | number): void;
  fail(name: string, status?: number): void;
  /** The exact bytes GET /<name> answers now. */
  body(name: string): string;
  stop(): void;
}

export const CUSTODY_TOKEN = "custody-secret-token-123";

export function startQuotes(): Quotes {
  const quotes = new Map<string, string>();
  const failing = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const name = new URL(req.url).pathname.slice(1);
      if (name === "custody" && req.headers.get("authorization") !== `Bearer ${CUSTODY_TOKEN}`) return new Response("no", { status: 401 });
      const status = failing.get(name);
      if (status !== undefined) return new Response("down", { status });
      const body = quotes.get(name);
      if (body === undefined) return new Response("unknown", { status: 404 });
      return new Response(body, { headers: { "content-type": "application/json" } });
    },
  });
  const bodyOf = (q: string | number) => `{"usd":${typeof q === "string" ? JSON.stringify(q) : String(q)}}`;
  return {
    url: `http://127.0.0.1:${server.port}`,
    set(name, q) {
      failing.delete(name);
      quotes.set(name, bodyOf(q));
    },
    fail(name, status = 503) {
      failing.set(name, status);
    },
    body(name) {
      return quotes.get(name)!;
    },
    stop() {
      server.stop(true);
    },
  };
}

export interface NavWorld {
  h: Harness;
  accountId: string;
  auth: { headers: Record<string, string> };
}

export function navWorld(chain: Devnet, token: Address, credit = 10 * USD): NavWorld {
  const h = makeHarness({
    config: (c: Config) => {
      devnetChain(chain, token)(c);
      c.webhooks.allow_private = true;
      c.nav.calculate_price_micro_usd = CALC_PRICE;
    },
  });
  return { h, ...tenant(h, credit) };
}

/** An account on the same svc with credit and a "records" key. */
export function tenant(h: Harness, credit = 10 * USD) {
  const { account } = accountWithSession(h.ctx);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id, { scopes: ["records"] });
  return { accountId: account.id, auth: { headers: bearer(key.token) } };
}

export const priceSource = (q: Quotes, name: string, label?: string) => ({ kind: "price", url: `${q.url}/${name}`, pointer: "/usd", ...(label ? { label } : {}) });
export const supplySource = (token: Address) => ({ kind: "erc20_supply", chain: "devnet", token });

export const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

// ---- the figures, recomputed with BigInt fractions (not the area's code) -----------------------

/** A decimal string as a fraction [numerator, denominator]. */
function fraction(text: string): [bigint, bigint] {
  const [int, frac = ""] = text.split(".");
  return [BigInt(int! + frac), 10n ** BigInt(frac.length)];
}

/** floor(Σ quantity × price × 10^6), one rounding over the exact sum. */
export function expectedGross(positions: [quantity: string, price: string][]): bigint {
  let num = 0n;
  let den = 1n;
  for (const [q, p] of positions) {
    const [qn, qd] = fraction(q);
    const [pn, pd] = fraction(p);
    num = num * qd * pd + qn * pn * den;
    den = den * qd * pd;
  }
  return (num * 1_000_000n) / den;
}

/** floor toward minus infinity of a / b, b > 0. */
export const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
