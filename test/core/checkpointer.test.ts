/**
 * WAL checkpoints on a thread (core/checkpointer.ts): under a steady stream of group commits the
 * serving connection never checkpoints inside a COMMIT, the thread copies the frames, the WAL
 * starts over instead of growing without bound, and every committed row is in the database
 * file; stopping the thread gives checkpoints back to the connection. Transactions.pause holds
 * grouped calls (they queue, nothing blocks) until released.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { Checkpointer } from "../../src/core/checkpointer.ts";
import { silentLogger } from "../../src/core/log.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

/** mxFrame and nBackfill from the WAL index header, as the thread reads them (sqlite.org/walformat.html). */
function walFrames(dbPath: string): { mxFrame: number; nBackfill: number } {
  const header = Buffer.from(require("node:fs").readFileSync(`${dbPath}-shm`).subarray(0, 100));
  return { mxFrame: header.readUInt32LE(16), nBackfill: header.readUInt32LE(96) };
}

describe("Transactions.pause", () => {
  test("holds grouped calls until released, then runs them in order; run() is not held", async () => {
    h = makeHarness();
    h.ctx.db.run("CREATE TABLE t (k INTEGER)");
    const resume = h.ctx.tx.pause();
    const done: number[] = [];
    const calls = [1, 2, 3].map((k) => h.ctx.tx.grouped(() => h.ctx.db.query("INSERT INTO t (k) VALUES (?)").run(k)).then(() => done.push(k)));
    await Bun.sleep(20);
    expect(done).toEqual([]);
    h.ctx.tx.run(() => h.ctx.db.query("INSERT INTO t (k) VALUES (0)").run());
    expect(h.ctx.db.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 1 });
    resume();
    resume(); // a second release changes nothing
    await Promise.all(calls);
    expect(done).toEqual([1, 2, 3]);
    expect(h.ctx.db.query<{ k: number }, []>("SELECT k FROM t ORDER BY rowid").all().map((r) => r.k)).toEqual([0, 1, 2, 3]);
  });
});

describe("Checkpointer", () => {
  test("under steady group commits the thread copies the frames, the WAL starts over, and no row is lost", async () => {
    h = makeHarness();
    const { db, tx } = h.ctx;
    const path = h.ctx.paths.db;
    db.run("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)");
    const checkpointer = new Checkpointer(db, path, tx, silentLogger, { pollMs: 2, copyFrames: 50, restartFrames: 400 });
    checkpointer.start();
    expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(0);
    const filler = "x".repeat(3000); // about one page a row
    let k = 0;
    let highest = 0;
    let restarts = 0;
    let last = 0;
    const deadline = Date.now() + 15_000;
    // Group commits, one after another, for as long as it takes to see the WAL start over three times (bounded).
    while (restarts < 3 && Date.now() < deadline) {
      await Promise.all(Array.from({ length: 8 }, () => tx.grouped(() => db.query("INSERT INTO t (k, v) VALUES (?, ?)").run(++k, filler))));
      const { mxFrame } = walFrames(path);
      if (mxFrame < last) restarts++;
      last = mxFrame;
      highest = Math.max(highest, mxFrame);
    }
    expect(restarts).toBe(3);
    // Bounded: the threshold plus what arrives while the thread copies, never a WAL that only grows.
    expect(highest).toBeLessThan(4_000);
    expect(statSync(`${path}-wal`).size).toBeLessThan(4_000 * 4_200);
    await checkpointer.stop();
    expect(db.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()!.wal_autocheckpoint).toBe(1000);
    // Every committed row is there, for a reader of the database file too once the WAL is copied.
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const reader = new Database(path, { readonly: true });
    try {
      expect(reader.query<{ n: number; s: number }, []>("SELECT count(*) AS n, sum(k) AS s FROM t").get()).toEqual({ n: k, s: (k * (k + 1)) / 2 });
    } finally {
      reader.close();
    }
  }, 30_000);
});
