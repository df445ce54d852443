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
});
