/**
 * POST /v1/nav/calculate without a chain: bad input refused by field name before anything is
 * charged, the edges of the arithmetic (a negative NAV floored toward minus infinity, a figure too
 * large to state), single-source and unchecked reconciliations, and 402 without credit.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../../src/config.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { CALC_PRICE, expectedGross, floorDiv, priceSource, type Quotes, startQuotes, tenant, USD } from "./nav-support.ts";

let quotes: Quotes;
beforeAll(() => {
  quotes = startQuotes();
  quotes.set("p", "12.5");
  quotes.set("huge", "1000000");
});
afterAll(() => quotes?.stop());

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const TOKEN = "0x00000000000000000000000000000000000000aa";

function world(credit = 10 * USD) {
  h = makeHarness({
    config: (c: Config) => {
      // A configured chain nobody calls here: naming it is enough for the input checks.
      c.chains = [{ name: "devnet", chain_id: 31337, rpc_url: "http://127.0.0.1:9", usdt: TOKEN, decimals: 6, confirmations: 1, explorer_url: "https://explorer.test" }];
      c.webhooks.allow_private = true;
      c.nav.calculate_price_micro_usd = CALC_PRICE;
    },
  });
  return { h, ...tenant(h, credit) };
}

const base = () => ({
  asset_id: "fund-x",
  holdings: [{ instrument: "BOND", quantity: "10", price_sources: [priceSource(quotes, "p")] }],
  liabilities_micro_usd: 0,
  supply: { reported_supply_micro_units: 100 * USD },
});

describe("bad input names the field and charges nothing", () => {
  test("table", async () => {
    const w = world();
    const src = priceSource(quotes, "p");
    const cases: [string, Record<string, unknown>, string][] = [
      ["asset id reserved", { asset_id: "records" }, "asset_id"],
      ["asset id with a slash", { asset_id: "a/b" }, "asset_id"],
      ["no holdings", { holdings: [] }, "holdings"],
      ["quantity with an exponent", { holdings: [{ instrument: "X", quantity: "1e5", price_sources: [src] }] }, "holdings.0.quantity"],
      ["negative quantity", { holdings: [{ instrument: "X", quantity: "-1", price_sources: [src] }] }, "holdings.0.quantity"],
      ["no price source", { holdings: [{ instrument: "X", quantity: "1", price_sources: [] }] }, "holdings.0.price_sources"],
      ["price source of another kind", { holdings: [{ instrument: "X", quantity: "1", price_sources: [{ kind: "custodian", url: `${quotes.url}/p`, pointer: "/usd" }] }] }, "holdings[0].price_sources[0].kind"],
      ["price source without url", { holdings: [{ instrument: "X", quantity: "1", price_sources: [{ kind: "price", pointer: "/usd" }] }] }, "holdings[0].price_sources[0].url"],
      ["negative liabilities", { liabilities_micro_usd: -1 }, "liabilities_micro_usd"],
      ["liabilities as a string", { liabilities_micro_usd: "5" }, "liabilities_micro_usd"],
      ["zero supply", { supply: { reported_supply_micro_units: 0 } }, "supply.reported_supply_micro_units"],
      ["on-chain source of another kind", { supply: { reported_supply_micro_units: 1, onchain: src } }, "supply.onchain.kind"],
      ["on-chain source on an unknown chain", { supply: { reported_supply_micro_units: 1, onchain: { kind: "erc20_supply", chain: "mars", token: TOKEN } } }, "supply.onchain.chain"],
      ["supporting source of kind price", { supporting_sources: [src] }, "supporting_sources[0].kind"],
      ["tolerance over 10,000 bps", { tolerance_bps: 10_001 }, "tolerance_bps"],
      ["max age under a minute", { max_age_secs: 10 }, "max_age_secs"],
      ["unit scale 0", { unit_scale: 0 }, "unit_scale"],
      ["valuation in the future", { valuation_timestamp: "2099-01-01T00:00:00Z" }, "valuation_timestamp"],
      ["valuation not a time", { valuation_timestamp: "yesterday" }, "valuation_timestamp"],
      ["an unknown field", { colour: "red" }, "colour"],
    ];
    const balance = () => w.h.ctx.ledger.balance(w.accountId).balance_micro_usd;
    const before = balance();
    for (const [name, patch, param] of cases) {
      const r = await w.h.json("POST", "/v1/nav/calculate", { ...w.auth, body: { ...base(), ...patch } });
      expect({ name, status: r.status, param: r.body.error?.param }).toEqual({ name, status: 400, param });
    }
    expect(balance()).toBe(before);
    expect(w.h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM nav_records").get()!.n).toBe(0);
  });

  test("402 without credit, nothing recorded; 403 for a key without the records scope", async () => {
    const w = world(0);
    const r = await w.h.json("POST", "/v1/nav/calculate", { ...w.auth, body: base() });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect(w.h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM nav_records").get()!.n).toBe(0);
    const key = apiKeyFor(w.h.ctx, w.accountId, { scopes: ["state"] });
    const denied = await w.h.json("POST", "/v1/nav/calculate", { headers: { authorization: `Bearer ${key.token}` }, body: base() });
    expect(denied.status).toBe(403);
  });
});

describe("the arithmetic's edges", () => {
  test("one price source and no on-chain supply: VERIFIED with SINGLE_SOURCE and NOT_CHECKED stated", async () => {
    const w = world();
    const r = await w.h.json("POST", "/v1/nav/calculate", { ...w.auth, body: { ...base(), unit_scale: 1000 } });
    expect(r.status).toBe(201);
    const p = r.body.payload;
    expect(p.status).toBe("VERIFIED");
    expect(p.reconciliation).toEqual({ supply: "NOT_CHECKED", reported_supply_micro_units: 100 * USD, onchain_supply_micro_units: null, supply_delta_bps: null, price_sources: "SINGLE_SOURCE", price_sources_compared: 1, tolerance_bps: 50 });
    expect(p.gross_asset_value_micro_usd).toBe(125 * USD);
    // NAV of 1,000 micro-units (a thousandth of a unit): 125 USD / 100 units / 1000.
    expect(p.nav_per_unit_micro_usd).toBe(1250);
    expect(p.unit_scale).toBe(1000);
  });

  test("liabilities above the assets: a negative NAV, per unit floored toward minus infinity", async () => {
    const w = world();
    const body = { ...base(), holdings: [{ instrument: "BOND", quantity: "0.333333", price_sources: [priceSource(quotes, "p")] }], liabilities_micro_usd: 7 * USD, supply: { reported_supply_micro_units: 3 * USD } };
    const p = (await w.h.json("POST", "/v1/nav/calculate", { ...w.auth, body })).body.payload;
    const gross = expectedGross([["0.333333", "12.5"]]);
    const total = gross - 7_000_000n;
    expect(total < 0n).toBe(true);
    expect(p.gross_asset_value_micro_usd).toBe(Number(gross));
    expect(p.total_nav_micro_usd).toBe(Number(total));
    expect(p.nav_per_unit_micro_usd).toBe(Number(floorDiv(total * 1_000_000n, 3_000_000n)));
    expect(p.nav_per_unit_micro_usd).toBe(Math.floor((Number(total) * 1_000_000) / 3_000_000));
  });

  test("a figure beyond what a micro_usd field carries: UNAVAILABLE with no figures, never rounded", async () => {
    const w = world();
    const body = { ...base(), holdings: [{ instrument: "BIG", quantity: "999999999999", price_sources: [priceSource(quotes, "huge")] }] };
    const r = await w.h.json("POST", "/v1/nav/calculate", { ...w.auth, body });
    expect(r.body.status).toBe("UNAVAILABLE");
    expect(r.body.payload.gross_asset_value_micro_usd).toBeNull();
    expect(r.body.payload.reasons).toEqual([expect.stringContaining("exceeds")]);
  });
});
