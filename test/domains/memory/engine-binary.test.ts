/**
 * sqlite-vec from a `bun build --compile` binary: the embedded .so lives in Bun's virtual
 * filesystem, which dlopen cannot read, so the loader writes it to a lib dir first. This builds
 * a tiny binary around the real loader (well under a second here) and runs it with an empty PATH
 * and no node_modules beside it.
 */
import { expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/harness.ts";

const LOADER = join(import.meta.dir, "../../../src/domains/memory/engine/vector-extension.ts");

test("a compiled binary loads sqlite-vec from its lib dir and runs a vec0 query", async () => {
  const dir = tempDir("svc-vecbin");
  const entry = join(dir, "main.ts");
  writeFileSync(
    entry,
    `import { Database } from "bun:sqlite";
     import { loadVectorExtension, vectorExtensionVersion } from ${JSON.stringify(LOADER)};
     const db = new Database(":memory:");
     loadVectorExtension(db, { libDir: process.argv[2] });
     db.run("CREATE VIRTUAL TABLE v USING vec0 (embedding float[2])");
     db.run("INSERT INTO v (rowid, embedding) VALUES (1, '[1,0]'), (2, '[0,1]')");
     const nearest = db.query("SELECT rowid FROM v WHERE embedding MATCH '[0.1,0.9]' AND k = 1").get();
     console.log(JSON.stringify({ version: vectorExtensionVersion(db), nearest }));`,
  );
  const binary = join(dir, "vecbin");
  const build = Bun.spawnSync([process.execPath, "build", "--compile", entry, "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
  expect(build.stderr.toString()).not.toContain("error");
  expect(build.exitCode).toBe(0);

  const libDir = join(dir, "data", "lib");
  const run = () => {
    const proc = Bun.spawnSync([binary, libDir], { cwd: dir, env: { PATH: "/nonexistent", HOME: dir }, stdout: "pipe", stderr: "pipe" });
    expect(proc.stderr.toString()).toBe("");
    return JSON.parse(proc.stdout.toString()) as { version: string; nearest: { rowid: number } };
  };
  expect(run()).toEqual({ version: expect.stringMatching(/^v0\.1\./), nearest: { rowid: 2 } });
  const written = readdirSync(libDir);
  expect(written).toEqual([expect.stringMatching(/^vec0-[0-9a-f]{16}\.so$/)]);
  // A second start reuses the same file.
  expect(run().nearest.rowid).toBe(2);
  expect(readdirSync(libDir)).toEqual(written);
});
