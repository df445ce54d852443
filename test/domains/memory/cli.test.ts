/**
 * svc memory list|stats through the compiled binary: it loads sqlite-vec from <data dir>/lib
 * (written there on first use) on the connection it opens, and reads what the routes stored.
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { runSvc } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { memoryGateway, seedDocuments } from "./memory-support.ts";

test("svc memory list and stats show an account's collections and totals, never document text", async () => {
  const dir = join(tempDir("svc-memcli"), "data");
  const g = memoryGateway({ dir });
  const c = (await g.call("POST", "/v1/memory/collections", { name: "field notes", chunk_size: 64 })).body;
  await g.call("POST", `/v1/memory/collections/${c.id}/documents`, { documents: seedDocuments });
  await g.call("POST", "/v1/memory/collections", { name: "empty" });
  g.h.close();

  const list = await runSvc(["memory", "list", "--account", g.accountId, "--data-dir", dir]);
  expect(list.stderr).toBe("");
  expect(list.code).toBe(0);
  expect(list.stdout).toContain(`${c.id}  field notes  hashed-embed (64d)  4 docs  4 chunks`);
  expect(list.stdout).toContain("empty  hashed-embed (?d)  0 docs");
  expect(list.stdout).not.toContain("borrow checker");
  // The compiled binary wrote sqlite-vec into the data dir and loaded it from there.
  expect(readdirSync(join(dir, "lib"))).toEqual([expect.stringMatching(/^vec0-[0-9a-f]{16}\.so$/)]);

  const totals = await runSvc(["memory", "stats", "--account", g.accountId, "--data-dir", dir, "--json"]);
  expect(JSON.parse(totals.stdout)).toMatchObject({ collections: 2, documents: 4, chunks: 4, limit: 100 });
  const one = await runSvc(["memory", "stats", c.id, "--account", g.accountId, "--data-dir", dir]);
  expect(one.stdout).toContain("model hashed-embed, dimension 64");
  expect(one.stdout).toContain("4 documents, 4 chunks");

  expect((await runSvc(["memory", "stats", "mcol_nope", "--account", g.accountId, "--data-dir", dir])).code).toBe(1);
  expect((await runSvc(["memory", "list", "--account", "acct_nope", "--data-dir", dir])).code).toBe(1);
  expect((await runSvc(["memory", "list", "--data-dir", dir])).code).toBe(2);
}, 120_000);
