/**
 * /v1/usage through HTTP: the summary, the event list (filters, limits, keyset paging while
 * events are being written, cursors bound to account and query, CSV), the signed statement
 * (verified with viem), and the SSE stream (live delivery, Last-Event-ID resume, heartbeats,
 * listener released on disconnect). Usage is made the way billable routes make it: the meter.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { verifyMessage } from "viem";
import { revokeSession } from "../../../src/domains/auth/sessions.ts";
import { usageRoutes } from "../../../src/domains/usage/routes.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const USD = 1_000_000;
const DAY = 86_400_000;

/** An account with a session and credit to spend. */
function customer(credit = 1_000 * USD) {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  return { id: account.id, auth: bearer(session.token), session };
}

interface Use {
  kind?: string;
  keyId?: string | null;
  runId?: string | null;
  resource?: string | null;
  cost?: number;
  units?: Record<string, unknown>;
  status?: string;
}

/** One settled billable action: reserve then settle, as every billable route does. */
function use(accountId: string, u: Use = {}): string {
  const cost = u.cost ?? 1_000;
  const r = h.ctx.meter.reserve({ accountId, keyId: u.keyId ?? null, amount: cost + 500, kind: u.kind ?? "inference", resource: u.resource ?? "gpt-x", runId: u.runId ?? null });
  return h.ctx.meter.settle(r, cost, { units: u.units ?? { input_tokens: 1 }, status: u.status }).usageEventId;
}

const get = (path: string, auth: Record<string, string>) => h.json("GET", path, { headers: auth });

describe("GET /v1/usage", () => {
  test("25 most recent events and 14 UTC days oldest to newest, with totals; only the caller's account", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    // 20 days ago (outside the daily window), then 3 days ago, then today.
    h.clock.advance(-20 * DAY);
    use(me.id, { kind: "inference", cost: 7 });
    h.clock.advance(17 * DAY);
    use(me.id, { kind: "inference", cost: 100 });
    use(me.id, { kind: "sandbox", cost: 50 });
    h.clock.advance(3 * DAY);
    const ids = Array.from({ length: 30 }, (_, i) => use(me.id, { kind: i % 3 ? "inference" : "mcp_call", cost: 10 }));
    use(other.id, { cost: 999_999 });

    const r = await get("/v1/usage", me.auth);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["daily", "recent", "totals"]);
    expect(r.body.recent.length).toBe(25);
    expect(r.body.recent.map((e: { id: string }) => e.id)).toEqual(ids.slice(-25).reverse());
    expect(r.body.recent[0]).toMatchObject({ kind: "inference", resource: "gpt-x", key_id: null, run_id: null, cost_micro_usd: 10, reserved_micro_usd: 510, status: "succeeded", units: { input_tokens: 1 } });
    expect(r.body.recent[0].created_at).toBe(new Date(h.clock.now()).toISOString());

    const daily = r.body.daily as { date: string; cost_micro_usd: number; events: number; by_kind: Record<string, { cost_micro_usd: number; events: number }> }[];
    expect(daily.length).toBe(14);
    expect(daily[13]!.date).toBe(new Date(h.clock.now()).toISOString().slice(0, 10));
    expect(daily[0]!.date).toBe(new Date(h.clock.now() - 13 * DAY).toISOString().slice(0, 10));
    expect(daily[13]).toEqual({ date: daily[13]!.date, cost_micro_usd: 300, events: 30, by_kind: { inference: { cost_micro_usd: 200, events: 20 }, mcp_call: { cost_micro_usd: 100, events: 10 } } });
    expect(daily[10]).toMatchObject({ cost_micro_usd: 150, events: 2, by_kind: { inference: { cost_micro_usd: 100, events: 1 }, sandbox: { cost_micro_usd: 50, events: 1 } } });
    expect(daily[5]).toMatchObject({ cost_micro_usd: 0, events: 0, by_kind: {} });
    expect(r.body.totals).toEqual({
      from: daily[0]!.date,
      to: daily[13]!.date,
      days: 14,
      cost_micro_usd: 450,
      events: 32,
      by_kind: { inference: { cost_micro_usd: 300, events: 21 }, mcp_call: { cost_micro_usd: 100, events: 10 }, sandbox: { cost_micro_usd: 50, events: 1 } },
    });
    expect(JSON.stringify(r.body)).not.toContain("999999");

    // ?days= widens the window (the console's 30-day chart): the event 20 days ago is in it now.
    const month = await get("/v1/usage?days=30", me.auth);
    expect(month.body.daily).toHaveLength(30);
    expect(month.body.totals).toMatchObject({ days: 30, events: 33 });
    expect((await get("/v1/usage?days=500", me.auth)).body.daily).toHaveLength(90);
    for (const bad of ["0", "-1", "x", "1.5"]) {
      const r = await get(`/v1/usage?days=${bad}`, me.auth);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("days");
    }
  });

  test("session only: no credential 401, an API key 401 wrong_credential_class", async () => {
    h = makeHarness();
    const me = customer();
    const key = apiKeyFor(h.ctx, me.id);
    for (const path of ["/v1/usage", "/v1/usage/events", "/v1/usage/stream"]) {
      expect((await h.json("GET", path)).status).toBe(401);
      const r = await get(path, bearer(key.token));
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe("wrong_credential_class");
    }
    expect((await h.json("POST", "/v1/usage/statement", { body: { from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z" } })).status).toBe(401);
  });
});

describe("GET /v1/usage/events", () => {
  test("named-key envelope, newest first; limit defaults to 100, clamps above 1000, refuses below 1", async () => {
    h = makeHarness();
    const me = customer();
    const ids = Array.from({ length: 1005 }, (_, i) => use(me.id, { cost: i }));
    const r = await get("/v1/usage/events", me.auth);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["events", "next_cursor"]);
    expect(r.body.events.length).toBe(100);
    expect(r.body.events[0].id).toBe(ids[1004]);
    expect(Object.keys(r.body.events[0]).sort()).toEqual(["cost_micro_usd", "created_at", "id", "key_id", "kind", "reserved_micro_usd", "resource", "run_id", "status", "units"]);
    expect(typeof r.body.next_cursor).toBe("string");
    const big = await get("/v1/usage/events?limit=5000", me.auth);
    expect(big.body.events.length).toBe(1000);
    const last = await get(`/v1/usage/events?limit=1000&cursor=${encodeURIComponent(big.body.next_cursor)}`, me.auth);
    expect(last.body.events.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 5).reverse());
    expect(last.body.next_cursor).toBeNull();
    for (const bad of ["0", "-1", "ten", "1.5"]) {
      const e = await get(`/v1/usage/events?limit=${bad}`, me.auth);
      expect(e.status).toBe(400);
      expect(e.body.error.param).toBe("limit");
    }
  });

  test("filters: kind, key_id, run_id, from (inclusive) and to (exclusive); never another account's events", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    const key = apiKeyFor(h.ctx, me.id);
    const t0 = h.clock.now();
    const a = use(me.id, { kind: "inference", keyId: key.id, runId: "run_1" });
    h.clock.advance(60_000);
    const b = use(me.id, { kind: "sandbox", runId: "run_1" });
    h.clock.advance(60_000);
    const c = use(me.id, { kind: "inference" });
    const foreign = use(other.id, { kind: "inference", runId: "run_1" });
    const ids = async (query: string) => {
      const r = await get(`/v1/usage/events?${query}`, me.auth);
      expect(r.status).toBe(200);
      return r.body.events.map((e: { id: string }) => e.id);
    };
    expect(await ids("")).toEqual([c, b, a]);
    expect(await ids("kind=inference")).toEqual([c, a]);
    expect(await ids(`key_id=${key.id}`)).toEqual([a]);
    expect(await ids("run_id=run_1")).toEqual([b, a]);
    expect(await ids("run_id=run_1&kind=sandbox")).toEqual([b]);
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await ids(`from=${iso(t0 + 60_000)}`)).toEqual([c, b]);
    expect(await ids(`to=${iso(t0 + 60_000)}`)).toEqual([a]);
    expect(await ids(`from=${iso(t0)}&to=${iso(t0 + 120_000)}`)).toEqual([b, a]);
    // An offset; an unencoded "+" arrives as a space and still means "+".
    expect(await ids("from=" + encodeURIComponent(new Date(t0 + 60_000).toISOString().replace("Z", "+00:00")))).toEqual([c, b]);
    const local = new Date(t0 + 60_000 + 3_600_000).toISOString().slice(0, 19) + "+01:00";
    expect(await ids(`from=${local}`)).toEqual([c, b]);
    expect(await ids("kind=nothing")).toEqual([]);
    const all = (await get("/v1/usage/events?run_id=run_1", other.auth)).body.events.map((e: { id: string }) => e.id);
    expect(all).toEqual([foreign]);
  });

  test("bad filter values answer 400 naming the field", async () => {
    h = makeHarness();
    const me = customer();
    const cases: [string, string][] = [
      ["from=yesterday", "from"],
      ["from=2026-11-21", "from"],
      ["to=2026-11-21T10:00:00", "to"],
      ["from=2026-11-21T10:00:00Z&to=2026-11-21T10:00:00Z", "to"],
      ["from=2026-11-22T10:00:00Z&to=2026-11-21T10:00:00Z", "to"],
      ["kind=", "kind"],
      [`key_id=${"k".repeat(201)}`, "key_id"],
      ["format=xml", "format"],
      ["cursor=garbage", "cursor"],
    ];
    for (const [query, param] of cases) {
      const r = await get(`/v1/usage/events?${query}`, me.auth);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
  });

  test("paging walks every event exactly once while new events are written between pages", async () => {
    h = makeHarness();
    const me = customer();
    const before = new Set(Array.from({ length: 57 }, (_, i) => use(me.id, { kind: i % 2 ? "inference" : "sandbox" })));
    const seen: string[] = [];
    const written: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await get(`/v1/usage/events?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, me.auth);
      expect(r.status).toBe(200);
      seen.push(...r.body.events.map((e: { id: string }) => e.id));
      cursor = r.body.next_cursor;
      pages++;
      // New usage commits between page fetches, some of it in the same second.
      for (let i = 0; i < 3; i++) written.push(use(me.id, { kind: "inference" }));
      h.clock.advance(1_000);
    } while (cursor);
    expect(pages).toBe(6);
    expect(seen.length).toBe(57);
    expect(new Set(seen).size).toBe(57);
    expect(new Set(seen)).toEqual(before);
    expect(written.some((id) => seen.includes(id))).toBe(false);
    // Pages were newest first throughout: the walk is the insertion order reversed.
    expect(seen).toEqual([...before].reverse());
    // A fresh walk sees everything, the new events first.
    const fresh = await get("/v1/usage/events?limit=1000", me.auth);
    expect(fresh.body.events.length).toBe(57 + written.length);
    expect(fresh.body.events[0].id).toBe(written.at(-1));
  });

  test("a cursor from another account, another query, or edited answers 400 invalid_cursor (never page one)", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    for (let i = 0; i < 5; i++) (use(me.id, { kind: "inference" }), use(other.id, { kind: "inference" }));
    const mine = (await get("/v1/usage/events?limit=2&kind=inference", me.auth)).body.next_cursor as string;
    const theirs = (await get("/v1/usage/events?limit=2&kind=inference", other.auth)).body.next_cursor as string;
    const refused = async (query: string, auth = me.auth) => {
      const r = await get(`/v1/usage/events?${query}`, auth);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: "invalid_cursor", param: "cursor" });
    };
    await refused(`kind=inference&cursor=${encodeURIComponent(theirs)}`);
    await refused(`kind=inference&cursor=${encodeURIComponent(mine)}`, other.auth);
    await refused(`cursor=${encodeURIComponent(mine)}`); // same account, other filters
    await refused(`kind=sandbox&cursor=${encodeURIComponent(mine)}`);
    const [payload, mac] = mine.split(".");
    const forged = Buffer.from(JSON.stringify([999_999])).toString("base64url");
    await refused(`kind=inference&cursor=${encodeURIComponent(`${forged}.${mac}`)}`);
    await refused(`kind=inference&cursor=${encodeURIComponent(`${payload}.${mac!.slice(0, -1)}${mac!.endsWith("A") ? "B" : "A"}`)}`);
    await refused(`kind=inference&cursor=${encodeURIComponent(mine + "x")}`);
    // The page size may change between pages; the cursor stays valid.
    const ok = await get(`/v1/usage/events?kind=inference&limit=50&cursor=${encodeURIComponent(mine)}`, me.auth);
    expect(ok.status).toBe(200);
    expect(ok.body.events.length).toBe(3);
  });
});

/** An independent RFC 4180 reader: quoted fields, doubled quotes, CRLF inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"', i++);
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") (row.push(field), (field = ""));
    else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += ch;
  }
  if (field || row.length) throw new Error("CSV does not end with CRLF");
  return rows;
}

describe("GET /v1/usage/events?format=csv", () => {
  const HEADER = ["id", "created_at", "kind", "resource", "key_id", "run_id", "cost_micro_usd", "reserved_micro_usd", "status", "units"];

  test("a header line and the same rows as JSON, escaped per RFC 4180", async () => {
    h = makeHarness();
    const me = customer();
    const key = apiKeyFor(h.ctx, me.id);
    use(me.id, { resource: 'model "large", v2\r\nsecond line', units: { note: 'a "quoted", value', n: 3 }, keyId: key.id, runId: "run_1" });
    use(me.id, { resource: null, units: {} });
    const res = await h.request("GET", "/v1/usage/events?format=csv", { headers: me.auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("x-next-cursor")).toBeNull();
    const text = await res.text();
    expect(text.startsWith(HEADER.join(",") + "\r\n")).toBe(true);
    expect(text).toContain('"model ""large"", v2\r\nsecond line"');
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(HEADER);
    const json = (await get("/v1/usage/events", me.auth)).body.events as Record<string, any>[];
    expect(rows.length).toBe(1 + json.length);
    json.forEach((event, i) => {
      const fields = Object.fromEntries(HEADER.map((col, j) => [col, rows[i + 1]![j]]));
      expect(fields).toEqual({
        id: event.id,
        created_at: event.created_at,
        kind: event.kind,
        resource: event.resource ?? "",
        key_id: event.key_id ?? "",
        run_id: event.run_id ?? "",
        cost_micro_usd: String(event.cost_micro_usd),
        reserved_micro_usd: String(event.reserved_micro_usd),
        status: event.status,
        units: JSON.stringify(event.units),
      });
      expect(JSON.parse(fields.units as string)).toEqual(event.units);
    });
  });

  test("same filters and paging: the next cursor travels in X-Next-Cursor and works for JSON and CSV alike", async () => {
    h = makeHarness();
    const me = customer();
    const ids = Array.from({ length: 25 }, (_, i) => use(me.id, { kind: i % 5 ? "inference" : "sandbox" }));
    const inference = ids.filter((_, i) => i % 5).reverse();
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await h.request("GET", `/v1/usage/events?format=csv&kind=inference&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: me.auth });
      expect(res.status).toBe(200);
      const rows = parseCsv(await res.text());
      expect(rows[0]).toEqual(HEADER);
      walked.push(...rows.slice(1).map((r) => r[0]!));
      cursor = res.headers.get("x-next-cursor");
    } while (cursor);
    expect(walked).toEqual(inference);
    // A CSV page's cursor continues a JSON walk of the same query.
    const first = await h.request("GET", "/v1/usage/events?format=csv&kind=inference&limit=7", { headers: me.auth });
    const next = await get(`/v1/usage/events?kind=inference&limit=7&cursor=${encodeURIComponent(first.headers.get("x-next-cursor")!)}`, me.auth);
    expect(next.body.events.map((e: { id: string }) => e.id)).toEqual(inference.slice(7, 14));
    // An empty page is just the header.
    expect(await (await h.request("GET", "/v1/usage/events?format=csv&kind=none", { headers: me.auth })).text()).toBe(HEADER.join(",") + "\r\n");
  });
});

describe("POST /v1/usage/statement", () => {
  test("a signed statement of the period's spend that viem verifies; the payload decodes independently", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    const key = apiKeyFor(h.ctx, me.id);
    const from = h.clock.now();
    use(me.id, { kind: "inference", keyId: key.id, cost: 1_250 }); // at `from`: inside
    h.clock.advance(3_600_000);
    use(me.id, { kind: "inference", keyId: key.id, cost: 750 });
    use(me.id, { kind: "sandbox", cost: 4_000 });
    use(other.id, { kind: "inference", cost: 123_456 });
    h.clock.advance(3_600_000);
    const to = h.clock.now();
    use(me.id, { kind: "inference", keyId: key.id, cost: 99 }); // at `to`: outside
    h.clock.advance(60_000);

    const r = await h.json("POST", "/v1/usage/statement", { headers: me.auth, body: { from: new Date(from).toISOString(), to: new Date(to).toISOString() } });
    expect(r.status).toBe(200);
    const { statement, signature, signer, payload } = r.body;
    expect(signer).toBe(h.ctx.signer.address);
    expect(await verifyMessage({ address: signer, message: statement, signature })).toBe(true);
    const decoded = JSON.parse(Buffer.from(statement, "base64url").toString("utf8"));
    expect(decoded).toEqual(payload);
    expect(decoded).toEqual({
      v: 1,
      type: "usage-statement",
      account_id: me.id,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      cost_micro_usd: 6_000,
      events: 3,
      by_kind: { inference: { cost_micro_usd: 2_000, events: 2 }, sandbox: { cost_micro_usd: 4_000, events: 1 } },
      by_key: { [key.id]: { cost_micro_usd: 2_000, events: 2 }, none: { cost_micro_usd: 4_000, events: 1 } },
      issued_at: new Date(h.clock.now()).toISOString(),
    });
    // Canonical JSON: sorted keys, no whitespace.
    expect(Buffer.from(statement, "base64url").toString("utf8").startsWith('{"account_id":')).toBe(true);
    // Any change to the statement breaks the signature.
    const inflated = Buffer.from(JSON.stringify({ ...decoded, cost_micro_usd: 1 })).toString("base64url");
    expect(await verifyMessage({ address: signer, message: inflated, signature })).toBe(false);
  });

  test("bad periods answer 400 naming the field; an empty period is a statement of zero", async () => {
    h = makeHarness();
    const me = customer();
    const now = h.clock.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ to: iso(now) }, "from"],
      [{ from: iso(now - DAY) }, "to"],
      [{ from: "last week", to: iso(now) }, "from"],
      [{ from: iso(now - DAY), to: 1234 }, "to"],
      [{ from: iso(now), to: iso(now - DAY) }, "to"],
      [{ from: iso(now - DAY), to: iso(now + 60_000) }, "to"],
      [{ from: iso(now - DAY), to: iso(now), extra: 1 }, "extra"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/usage/statement", { headers: me.auth, body });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const empty = await h.json("POST", "/v1/usage/statement", { headers: me.auth, body: { from: iso(now - DAY), to: iso(now) } });
    expect(empty.status).toBe(200);
    expect(empty.body.payload).toMatchObject({ cost_micro_usd: 0, events: 0, by_kind: {}, by_key: {} });
    expect(await verifyMessage({ address: empty.body.signer, message: empty.body.statement, signature: empty.body.signature })).toBe(true);
  });
});

/** Reads SSE frames from a response body, with a bounded wait for each. */
class SseReader {
  private buffer = "";
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  private readonly decoder = new TextDecoder();
  ended = false;

  constructor(res: Response) {
    this.reader = res.body!.getReader();
  }

  /** The next frame (blank-line separated), or null when the stream ended. */
  async frame(timeoutMs = 2_000): Promise<string | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end >= 0) {
        const frame = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return frame;
      }
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE frame within ${timeoutMs} ms; have ${JSON.stringify(this.buffer)}`);
      const chunk = await Promise.race([this.reader.read(), Bun.sleep(left).then(() => "timeout" as const)]);
      if (chunk === "timeout") continue;
      if (chunk.done) this.ended = true;
      else this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next `event: usage` frame, skipping comments: {id, event, data}. */
  async event(timeoutMs = 2_000): Promise<{ id: string; event: string; data: Record<string, unknown> } | null> {
    for (;;) {
      const frame = await this.frame(timeoutMs);
      if (frame === null) return null;
      const fields = Object.fromEntries(
        frame
          .split("\n")
          .filter((l) => !l.startsWith(":"))
          .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
      );
      if (fields.event) return { id: fields.id!, event: fields.event, data: JSON.parse(fields.data!) };
    }
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

describe("GET /v1/usage/stream", () => {
  /** The usage routes alone, with a short heartbeat so the test need not wait 15 s. */
  const streamApp = (options = { heartbeatMs: 40 }) => new Elysia().use(usageRoutes(h.ctx, options));
  const open = (app: { handle(r: Request): Promise<Response> | Response }, auth: Record<string, string>, lastEventId?: string) =>
    app.handle(new Request("http://svc.test/v1/usage/stream", { headers: { ...auth, ...(lastEventId ? { "last-event-id": lastEventId } : {}) } }));

  test("delivers the account's new events after commit, never another account's; releases its listener on cancel", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    const baseline = h.ctx.meter.usage.size;
    const res = await open(h.app, me.auth);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toContain("no-cache");
    const sse = new SseReader(res);
    expect(await sse.frame()).toMatch(/^retry: 3000\n: connected /);
    expect(h.ctx.meter.usage.size).toBe(baseline + 1);
    use(other.id, { cost: 5 });
    const id = use(me.id, { kind: "sandbox", cost: 42, runId: "run_9" });
    const got = await sse.event();
    expect(got!.event).toBe("usage");
    expect(got!.data).toEqual((await get("/v1/usage/events?limit=1", me.auth)).body.events[0]);
    expect(got!.data).toMatchObject({ id, kind: "sandbox", cost_micro_usd: 42, run_id: "run_9" });
    // The id is opaque (it must not reveal how many events other tenants made).
    expect(got!.id).not.toMatch(/^\d+$/);
    await sse.cancel();
    expect(h.ctx.meter.usage.size).toBe(baseline);
  });

  test("Last-Event-ID replays what was missed from the table, then continues live", async () => {
    h = makeHarness();
    const me = customer();
    const app = streamApp();
    const first = new SseReader(await open(app, me.auth));
    const a = use(me.id);
    const seenA = await first.event();
    expect(seenA!.data.id).toBe(a);
    await first.cancel();
    // Missed while disconnected.
    const missed = [use(me.id, { cost: 2 }), use(me.id, { cost: 3 }), use(me.id, { cost: 4 })];
    const again = new SseReader(await open(app, me.auth, seenA!.id));
    const replayed = [await again.event(), await again.event(), await again.event()];
    expect(replayed.map((e) => e!.data.id)).toEqual(missed);
    const live = use(me.id, { cost: 5 });
    const next = await again.event();
    expect(next!.data.id).toBe(live);
    await again.cancel();
    // Resuming from the last id seen replays nothing twice.
    const third = new SseReader(await open(app, me.auth, next!.id));
    const after = use(me.id, { cost: 6 });
    expect((await third.event())!.data.id).toBe(after);
    await third.cancel();
  });

  test("a backlog beyond the replay bound is sent in bounded parts: the stream ends, the reconnect continues", async () => {
    h = makeHarness();
    const me = customer();
    const app = new Elysia().use(usageRoutes(h.ctx, { heartbeatMs: 1_000, replayLimit: 4 }));
    const start = new SseReader(await open(app, me.auth));
    use(me.id);
    const mark = await start.event();
    await start.cancel();
    const missed = Array.from({ length: 10 }, () => use(me.id));
    const got: string[] = [];
    let lastId = mark!.id;
    for (let connection = 0; connection < 3; connection++) {
      const sse = new SseReader(await open(app, me.auth, lastId));
      for (;;) {
        const e = await sse.event(300).catch(() => null);
        if (!e) break;
        got.push(e.data.id as string);
        lastId = e.id;
      }
      if (!sse.ended) await sse.cancel();
      if (connection < 2) expect(sse.ended).toBe(true); // 4 + 4 sent, then the stream closed
    }
    expect(got).toEqual(missed);
    expect(h.ctx.meter.usage.size).toBe(0);
  });

  test("heartbeats are comment lines; signing out ends the stream at the next one", async () => {
    h = makeHarness();
    const me = customer();
    const sse = new SseReader(await open(streamApp(), me.auth));
    await sse.frame();
    expect(await sse.frame(1_000)).toBe(": heartbeat");
    expect(await sse.frame(1_000)).toBe(": heartbeat");
    revokeSession(h.ctx, me.id, me.session.id);
    expect(await sse.frame(1_000)).toBe(": session ended");
    expect(await sse.frame(1_000)).toBeNull();
    expect(h.ctx.meter.usage.size).toBe(0);
  });

  test("a Last-Event-ID minted for another account, or edited, answers 400", async () => {
    h = makeHarness();
    const me = customer();
    const other = customer();
    const sse = new SseReader(await open(h.app, other.auth));
    await sse.frame();
    use(other.id);
    const theirs = (await sse.event())!.id;
    await sse.cancel();
    for (const bad of [theirs, "42", "abc.def"]) {
      const r = await open(h.app, me.auth, bad);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { type: string } }).error.type).toBe("invalid_cursor");
    }
    expect(h.ctx.meter.usage.size).toBe(0);
  });

  test("a client that disconnects from a real server releases the listener", async () => {
    h = makeHarness();
    const me = customer();
    const app = streamApp({ heartbeatMs: 50 });
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => app.handle(req) });
    try {
      const abort = new AbortController();
      const res = await fetch(`http://127.0.0.1:${server.port}/v1/usage/stream`, { headers: me.auth, signal: abort.signal });
      const sse = new SseReader(res);
      await sse.frame();
      use(me.id, { cost: 77 });
      expect((await sse.event())!.data.cost_micro_usd).toBe(77);
      expect(h.ctx.meter.usage.size).toBe(1);
      abort.abort();
      for (let i = 0; i < 100 && h.ctx.meter.usage.size > 0; i++) await Bun.sleep(20);
      expect(h.ctx.meter.usage.size).toBe(0);
    } finally {
      server.stop(true);
    }
  });
});
