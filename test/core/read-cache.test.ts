/**
 * The read cache (core/read-cache.ts): a change to a cached row is seen — made by this process,
 * by another one, or undone by a rollback — and a row nobody changed is served without a read.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { routedModel } from "../../src/domains/inference/model-rerouting.ts";
import { resolveApiKey } from "../../src/domains/keys/principal.ts";
import { revokeKey } from "../../src/domains/keys/service.ts";
import { setSuspended } from "../../src/domains/accounts/service.ts";
import { addDenied, isDenied, removeDenied } from "../../src/domains/admin/denylist.ts";
import { createGuardrail, deleteGuardrail } from "../../src/domains/guardrails/service.ts";
import { guardrailIdsOf } from "../../src/domains/guardrails/store.ts";
import { sha256Hex } from "../../src/core/secrets.ts";
import { accountWithSession, apiKeyFor } from "../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

/** The next turn of the event loop: where the cache reads its counter again. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A second connection to the same database: another process, as far as SQLite can tell. */
function otherProcess(run: (db: Database) => void): void {
  const db = new Database(h.ctx.paths.db);
  try {
    db.run("PRAGMA busy_timeout = 5000");
    run(db);
  } finally {
    db.close();
  }
}

function keyed(scopes = ["inference"]) {
  h = makeHarness();
  const { account } = accountWithSession(h.ctx);
  return { account, key: apiKeyFor(h.ctx, account.id, { scopes }) };
}

const listBatches = (token: string) => h.json("GET", "/v1/batches", { headers: bearer(token) });

describe("a cached row that changes", () => {
  test("a key revoked by another process is refused from the next turn of the loop", async () => {
    const { key } = keyed();
    expect((await listBatches(key.token)).status).toBe(200);
    otherProcess((db) => db.run("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [h.clock.now(), key.id]));
    await nextTurn();
    const refused = await listBatches(key.token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.type).toBe("api_key_revoked");
  });

  test("a key revoked or an account suspended by this process is seen in the same turn", () => {
    const { account, key } = keyed(["inference", "records"]);
    const sha = sha256Hex(key.token);
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference", "records"]);
    setSuspended(h.ctx, { accountId: account.id, suspended: true, reason: "test", actor: "cli" });
    expect(() => resolveApiKey(h.ctx, sha)).toThrow(/suspended/);
    setSuspended(h.ctx, { accountId: account.id, suspended: false, actor: "cli" });
    expect(resolveApiKey(h.ctx, sha).keyId).toBe(key.id);
    revokeKey(h.ctx, account.id, key.id);
    expect(() => resolveApiKey(h.ctx, sha)).toThrow(/revoked/);
  });

  test("a change rolled back leaves the cache on the committed row", async () => {
    const { key } = keyed(["inference"]);
    const sha = sha256Hex(key.token);
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference"]);
    expect(() =>
      h.ctx.tx.run(() => {
        h.ctx.db.run("UPDATE api_keys SET scopes = ? WHERE id = ?", [JSON.stringify(["records"]), key.id]);
        // Read inside the transaction: its own change, never stored.
        expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["records"]);
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference"]);
    // The counter is back where the copies were read: a later, unrelated change moves it to the
    // value the rolled-back transaction had reached, and still no stale copy is served.
    otherProcess((db) => db.run("UPDATE api_keys SET name = 'renamed' WHERE id = ?", [key.id]));
    await nextTurn();
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference"]);
  });

  test("a digest denied or allowed again, here or by another process, is followed (the empty list is what is cached)", async () => {
    keyed();
    const [a, b] = ["a".repeat(64), "b".repeat(64)];
    expect(isDenied(h.ctx, a)).toBe(false);
    addDenied(h.ctx, { sha256: a, actor: "cli" });
    expect(isDenied(h.ctx, a)).toBe(true);
    expect(isDenied(h.ctx, b)).toBe(false);
    removeDenied(h.ctx, { sha256: a, actor: "cli" });
    expect(isDenied(h.ctx, a)).toBe(false);
    otherProcess((db) => db.run("INSERT INTO denylist (sha256, reason, created_at) VALUES (?, NULL, 0)", [b]));
    await nextTurn();
    expect(isDenied(h.ctx, b)).toBe(true);
    otherProcess((db) => db.run("DELETE FROM denylist"));
    await nextTurn();
    expect(isDenied(h.ctx, b)).toBe(false);
  });

  test("a guardrail made or deleted, here or by another process, is followed (no guardrail is what is cached)", async () => {
    const { account } = keyed();
    const ids = () => guardrailIdsOf(h.ctx, account.id).map((g) => g.id);
    expect(ids()).toEqual([]);
    const made = createGuardrail(h.ctx, account.id, { name: "no secrets", detectors: [{ type: "secrets", direction: "input", action: "block" }] });
    expect(ids()).toEqual([made.id]);
    deleteGuardrail(h.ctx, account.id, made.id);
    expect(ids()).toEqual([]);
    otherProcess((db) =>
      db.run("INSERT INTO guardrails (id, account_id, name, detectors, created_at) VALUES ('gr_other', ?, 'other', ?, 0)", [
        account.id,
        JSON.stringify([{ type: "secrets", direction: "input", action: "block", options: {} }]),
      ]),
    );
    await nextTurn();
    expect(ids()).toEqual(["gr_other"]);
    otherProcess((db) => db.run("DELETE FROM guardrails WHERE id = 'gr_other'"));
    await nextTurn();
    expect(ids()).toEqual([]);
  });

  test("a model route set or cleared in another process is followed", async () => {
    const { account } = keyed();
    expect(routedModel(h.ctx, account.id, "a")).toBeNull();
    otherProcess((db) => db.run("INSERT INTO account_model_routes (account_id, from_model, to_model, created_at) VALUES (?, 'a', 'b', 0)", [account.id]));
    await nextTurn();
    expect(routedModel(h.ctx, account.id, "a")).toBe("b");
    otherProcess((db) => db.run("DELETE FROM account_model_routes WHERE account_id = ?", [account.id]));
    await nextTurn();
    expect(routedModel(h.ctx, account.id, "a")).toBeNull();
  });
});

describe("a cached row nobody changed", () => {
  test("is served from memory: a write that slips past the triggers is not seen until the counter moves", async () => {
    const { key } = keyed(["inference"]);
    const sha = sha256Hex(key.token);
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference"]);
    // Change the row and put the counter back: only a copy could still say "inference".
    otherProcess((db) => {
      db.run("UPDATE api_keys SET scopes = ? WHERE id = ?", [JSON.stringify(["records"]), key.id]);
      db.run("UPDATE read_epoch SET n = n - 1 WHERE id = 1");
    });
    await nextTurn();
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["inference"]);
    otherProcess((db) => db.run("UPDATE read_epoch SET n = n + 1 WHERE id = 1"));
    await nextTurn();
    expect(resolveApiKey(h.ctx, sha).scopes).toEqual(["records"]);
  });

  test("each settle's lifetime spend does not move the counter, and a lifetime cap still reads it", async () => {
    const { account, key } = keyed();
    const epoch = () => h.ctx.db.query<{ n: number }, []>("SELECT n FROM read_epoch").get()!.n;
    const before = epoch();
    h.ctx.ledger.credit(account.id, 1_000_000);
    h.ctx.db.run("UPDATE api_keys SET total_cap_micro_usd = 250 WHERE id = ?", [key.id]);
    const moved = epoch();
    expect(moved).toBeGreaterThan(before);
    for (let i = 0; i < 2; i++) {
      const r = await h.ctx.meter.reserveGrouped({ accountId: account.id, keyId: key.id, amount: 100, kind: "inference" });
      await h.ctx.meter.settleGrouped(r, 100);
    }
    expect(epoch()).toBe(moved);
    await expect(h.ctx.meter.reserveGrouped({ accountId: account.id, keyId: key.id, amount: 100, kind: "inference" })).rejects.toMatchObject({ status: 402 });
  });
});

describe("the triggers", () => {
  test("api_keys' update trigger watches every column but the carried lifetime spend (in no cached row, and moved only by rotation, which moves watched columns too)", () => {
    h = makeHarness();
    const columns = h.ctx.db.query<{ name: string }, []>("PRAGMA table_info(api_keys)").all().map((c) => c.name);
    const sql = h.ctx.db.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'api_keys_read_epoch_update'").get()!.sql;
    const watched = /UPDATE OF ([\s\S]+?) ON api_keys/.exec(sql)![1]!.split(",").map((c) => c.trim());
    expect(watched.sort()).toEqual(columns.filter((c) => c !== "spent_carried_micro_usd").sort());
  });
});
