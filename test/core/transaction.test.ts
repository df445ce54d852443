/**
 * Transactions: after-commit hooks, and group commit (grouped) — calls queued in one turn of
 * the event loop share one write transaction, each in its own savepoint.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

function scratch(): void {
  h.ctx.db.run("CREATE TABLE t (k TEXT PRIMARY KEY, parent TEXT REFERENCES t (k))");
}
const keys = () => h.ctx.db.query<{ k: string }, []>("SELECT k FROM t ORDER BY k").all().map((r) => r.k);
const insert = (k: string, parent: string | null = null) => h.ctx.db.query("INSERT INTO t (k, parent) VALUES (?, ?)").run(k, parent);

describe("grouped (group commit)", () => {
  test("calls queued together run in one transaction and resolve after it commits, hooks first", async () => {
    h = makeHarness();
    scratch();
    const other = new Database(join(h.dir, "svc.db"), { readonly: true });
    const committed = () => other.query<{ n: number }, []>("SELECT count(*) AS n FROM t").get()!.n;
    const order: string[] = [];
    const seenByOthers: number[] = [];
    const results = await Promise.all(
      ["a", "b", "c"].map((k) =>
        h.ctx.tx
          .grouped(() => {
            insert(k);
            seenByOthers.push(committed());
            h.ctx.tx.afterCommit(() => order.push(`hook ${k}`));
            return k.toUpperCase();
          })
          .then((v) => {
            order.push(`resolved ${k}`);
            return v;
          }),
      ),
    );
    expect(results).toEqual(["A", "B", "C"]);
    // While c ran, another connection saw none of a and b: one transaction, not three.
    expect(seenByOthers).toEqual([0, 0, 0]);
    expect(committed()).toBe(3);
    expect(order).toEqual(["hook a", "hook b", "hook c", "resolved a", "resolved b", "resolved c"]);
    other.close();
  });

  test("one call that throws undoes only its own writes and rejects only its own promise", async () => {
    h = makeHarness();
    scratch();
    const hooks: string[] = [];
    const outcomes = await Promise.allSettled([
      h.ctx.tx.grouped(() => insert("a")),
      h.ctx.tx.grouped(() => {
        insert("b");
        h.ctx.tx.afterCommit(() => hooks.push("b"));
        throw new Error("b failed");
      }),
      h.ctx.tx.grouped(() => {
        insert("c");
        h.ctx.tx.afterCommit(() => hooks.push("c"));
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe("b failed");
    expect(keys()).toEqual(["a", "c"]);
    expect(hooks).toEqual(["c"]); // the failed call's hook is dropped with its savepoint
  });

  test("when the group cannot commit, every call rejects and nothing of the group is written", async () => {
    h = makeHarness();
    scratch();
    const outcomes = await Promise.allSettled([
      h.ctx.tx.grouped(() => insert("a")),
      h.ctx.tx.grouped(() => {
        // A deferred foreign key is checked at COMMIT: this makes the whole group's COMMIT fail.
        h.ctx.db.run("PRAGMA defer_foreign_keys = ON");
        insert("orphan", "nobody");
      }),
      h.ctx.tx.grouped(() => insert("c")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(keys()).toEqual([]);
    // The next group is not affected.
    await h.ctx.tx.grouped(() => insert("d"));
    expect(keys()).toEqual(["d"]);
  });

  // A call alone in its turn runs in a transaction of its own, without the per-call savepoint:
  // the same outcomes, one at a time.
  const throwing = (): never => {
    insert("a");
    insert("b");
    throw new Error("alone failed");
  };
  const unCommittable = (): void => {
    // A deferred foreign key is checked at COMMIT.
    h.ctx.db.run("PRAGMA defer_foreign_keys = ON");
    insert("orphan", "nobody");
  };
  test.each([
    ["succeeds", (): string => (insert("a"), "A"), { status: "fulfilled", keys: ["a"], hooks: ["hook"] }],
    ["throws", throwing, { status: "rejected", keys: [], hooks: [] }],
    ["cannot commit", unCommittable, { status: "rejected", keys: [], hooks: [] }],
  ] as const)("a call alone that %s", async (_name, fn: () => unknown, want) => {
    h = makeHarness();
    scratch();
    const hooks: string[] = [];
    const [outcome] = await Promise.allSettled([
      h.ctx.tx.grouped(() => {
        h.ctx.tx.afterCommit(() => hooks.push("hook"));
        return fn();
      }),
    ]);
    expect(outcome!.status).toBe(want.status);
    if (outcome!.status === "fulfilled") expect(outcome!.value).toBe("A");
    expect(keys()).toEqual([...want.keys]);
    expect(hooks).toEqual([...want.hooks]);
    expect(h.ctx.db.inTransaction).toBe(false);
    // The next call is not affected.
    await h.ctx.tx.grouped(() => insert("z"));
    expect(keys()).toEqual([...want.keys, "z"]);
  });

  test("more calls than one group holds are all run, in order, over several groups", async () => {
    h = makeHarness();
    scratch();
    const n = 300;
    const results = await Promise.all(Array.from({ length: n }, (_, i) => h.ctx.tx.grouped(() => (insert(`k${String(i).padStart(3, "0")}`), i))));
    expect(results).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(keys().length).toBe(n);
  });

  test("refused inside a transaction: the caller's transaction would commit before the group runs", () => {
    h = makeHarness();
    expect(() => h.ctx.tx.run(() => h.ctx.tx.grouped(() => 1))).toThrow("grouped() called inside a transaction");
  });
});
