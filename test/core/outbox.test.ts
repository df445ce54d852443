import { afterEach, describe, expect, test } from "bun:test";
import type { OutboxEvent } from "../../src/core/outbox.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const count = (h: Harness) => h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM outbox_events").get()!.n;

describe("transactional outbox", () => {
  test("an event is written with its change and published only after commit", () => {
    h = makeHarness();
    const published: OutboxEvent[] = [];
    h.ctx.events.subscribe((e) => published.push(e));
    h.ctx.tx.run(() => {
      h.ctx.db.run("INSERT INTO accounts (id, created_at) VALUES ('acct_1', 0)");
      const e = h.ctx.outbox.emit("key_created", "acct_1", { key_id: "key_1" });
      expect(e.id).toMatch(/^evt_/);
      expect(published).toEqual([]); // not yet committed
    });
    expect(published.map((e) => e.type)).toEqual(["key_created"]);
    expect(published[0]!.payload).toEqual({ key_id: "key_1" });
    expect(h.ctx.outbox.since(0).map((e) => e.id)).toEqual([published[0]!.id]);
  });

  test("a compact row: the stored payload is the key, every read and the published event see the whole payload", () => {
    h = makeHarness();
    const published: OutboxEvent[] = [];
    h.ctx.events.subscribe((e) => published.push(e));
    const records = new Map([["r_1", { body: "x".repeat(1000) }]]);
    h.ctx.outbox.expandWith("thing_made", (stored) => ({ ...stored, ...records.get(String(stored.id)) }));
    const full = { id: "r_1", body: "x".repeat(1000) };
    const e = h.ctx.tx.run(() => h.ctx.outbox.emit("thing_made", null, full, { stored: { id: "r_1" } }));
    expect(h.ctx.db.query<{ payload: string }, []>("SELECT payload FROM outbox_events").get()!.payload).toBe('{"id":"r_1"}');
    expect(published[0]!.payload).toEqual(full);
    expect(h.ctx.outbox.get(e.id)!.payload).toEqual(full);
    expect(h.ctx.outbox.since(0)[0]!.payload).toEqual(full);
    // A compact payload with nothing to restore it would lose data: refused.
    expect(() => h.ctx.tx.run(() => h.ctx.outbox.emit("other", null, full, { stored: { id: "r_1" } }))).toThrow("needs an expander");
  });

  test("a rolled-back change leaves no event and publishes nothing", () => {
    h = makeHarness();
    const published: OutboxEvent[] = [];
    h.ctx.events.subscribe((e) => published.push(e));
    expect(() =>
      h.ctx.tx.run(() => {
        h.ctx.db.run("INSERT INTO accounts (id, created_at) VALUES ('acct_1', 0)");
        h.ctx.outbox.emit("key_created", "acct_1", {});
        throw new Error("change failed");
      }),
    ).toThrow("change failed");
    expect(count(h)).toBe(0);
    expect(h.ctx.db.query("SELECT 1 FROM accounts").get()).toBeNull();
    expect(published).toEqual([]);
  });

  test("a nested step that rolls back drops its event; the outer commit keeps the rest", () => {
    h = makeHarness();
    const published: string[] = [];
    h.ctx.events.subscribe((e) => published.push(e.type));
    h.ctx.tx.run(() => {
      h.ctx.outbox.emit("outer", null, {});
      try {
        h.ctx.tx.run(() => {
          h.ctx.outbox.emit("inner", null, {});
          throw new Error("inner fails");
        });
      } catch {
        // the caller handles the inner failure and carries on
      }
    });
    expect(published).toEqual(["outer"]);
    expect(h.ctx.outbox.since(0).map((e) => e.type)).toEqual(["outer"]);
  });

  test("emitting outside a transaction is a programming error", () => {
    h = makeHarness();
    expect(() => h.ctx.outbox.emit("x", null, {})).toThrow(/outside a transaction/);
    expect(count(h)).toBe(0);
  });

  test("a throwing listener neither fails the change nor starves other listeners", () => {
    h = makeHarness();
    const got: string[] = [];
    h.ctx.events.subscribe(() => {
      throw new Error("bad listener");
    });
    h.ctx.events.subscribe((e) => got.push(e.type));
    h.ctx.tx.run(() => h.ctx.outbox.emit("balance_low", null, {}));
    expect(got).toEqual(["balance_low"]);
  });

  test("counts by type for operator metrics", () => {
    h = makeHarness();
    h.ctx.tx.run(() => {
      h.ctx.outbox.emit("a", null, {});
      h.ctx.outbox.emit("a", null, {});
      h.ctx.outbox.emit("b", null, {});
    });
    expect(h.ctx.outbox.countsByType()).toEqual({ a: 2, b: 1 });
    expect(h.ctx.outbox.countsByType(h.clock.now() + 1)).toEqual({});
  });

  test("counts by type: the all-time tally keeps up with new events and never counts a rolled-back one", () => {
    h = makeHarness();
    const emit = (type: string) => h.ctx.tx.run(() => h.ctx.outbox.emit(type, null, {}));
    const base = h.ctx.outbox.countsByType();
    const plus = (extra: Record<string, number>) => {
      const want: Record<string, number> = { ...base };
      for (const [t, n] of Object.entries(extra)) want[t] = (want[t] ?? 0) + n;
      return want;
    };
    emit("a");
    expect(h.ctx.outbox.countsByType()).toEqual(plus({ a: 1 }));
    emit("b");
    emit("a");
    expect(h.ctx.outbox.countsByType()).toEqual(plus({ a: 2, b: 1 }));
    // Counted inside a transaction, its own events show; rolled back, they are gone from the tally.
    expect(() =>
      h.ctx.tx.run(() => {
        h.ctx.outbox.emit("c", null, {});
        expect(h.ctx.outbox.countsByType()).toEqual(plus({ a: 2, b: 1, c: 1 }));
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    expect(h.ctx.outbox.countsByType()).toEqual(plus({ a: 2, b: 1 }));
    emit("c");
    expect(h.ctx.outbox.countsByType()).toEqual(plus({ a: 2, b: 1, c: 1 }));
  });

  test("counting by type reads by primary key: no query scans the table", () => {
    h = makeHarness();
    const plan = (sql: string) => h.ctx.db.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r.detail).join(" | ");
    for (const sql of [
      "SELECT type, count(*) AS n FROM outbox_events WHERE seq > 1 AND seq <= 9 GROUP BY type",
      "SELECT max(seq) AS top FROM outbox_events",
      "SELECT (SELECT min(seq) FROM outbox_events) AS lo, (SELECT max(seq) FROM outbox_events) AS hi",
      "SELECT seq, created_at FROM outbox_events WHERE seq >= 5 ORDER BY seq LIMIT 1",
    ]) {
      expect(plan(sql)).not.toContain("SCAN outbox_events");
    }
  });

  test("counts by type in a window: the same as counting every row, wherever the window starts", () => {
    h = makeHarness();
    const start = h.clock.now();
    // Events a minute apart, some minutes with several, some with none (gaps in seq from a rollback too).
    for (let i = 0; i < 40; i++) {
      h.clock.advance(60_000 * (i % 3));
      h.ctx.tx.run(() => h.ctx.outbox.emit(i % 2 ? "odd" : "even", null, {}));
      if (i % 7 === 0) {
        const rolledBack = () =>
          h.ctx.tx.run(() => {
            h.ctx.outbox.emit("gone", null, {});
            throw new Error("roll back");
          });
        expect(rolledBack).toThrow("roll back");
      }
    }
    const brute = (since: number) => {
      const rows = h.ctx.db.query<{ type: string; n: number }, [number]>("SELECT type, count(*) AS n FROM outbox_events WHERE created_at >= ? GROUP BY type ORDER BY type").all(since);
      return Object.fromEntries(rows.map((r) => [r.type, r.n]));
    };
    for (const since of [start - 1, start, start + 1, start + 60_000, start + 61_000, start + 600_000, h.clock.now(), h.clock.now() + 1]) {
      expect(h.ctx.outbox.countsByType(since)).toEqual(brute(since));
    }
  });
});
