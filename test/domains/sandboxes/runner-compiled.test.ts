/**
 * The gateway ships as a compiled Bun executable. JavaScript sandboxes then run on that same
 * executable, mounted read-only and started with BUN_BE_BUN=1 (which makes a compiled binary
 * act as the Bun CLI). This builds a small compiled program around the runner and checks it.
 */
import { expect, test } from "bun:test";
import { chmodSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { sandboxTempDir } from "../../support/sandbox-runner.ts";

const ROOT = join(import.meta.dir, "../../..");

test("a compiled binary runs JavaScript sandboxes on itself", async () => {
  const dir = sandboxTempDir("svc-compiled");
  const binary = join(dir, "svc-entry");
  const build = Bun.spawnSync([process.execPath, "build", "--compile", join(ROOT, "test/support/sandbox-compiled-entry.ts"), "--outfile", binary], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(build.exitCode).toBe(0);
  // The sandbox uid must be able to reach the binary to mount it (as the installed one can).
  chmodSync(binary, 0o755);
  const proc = Bun.spawn([binary, join(dir, "ws"), join(dir, "staging")], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  const { posture, result } = JSON.parse(out) as {
    posture: { languages: { name: string; runtime: string; version: string }[] };
    result: { status: string; stdout: string };
  };
  const js = posture.languages.find((l) => l.name === "javascript")!;
  expect(js.runtime).toBe("self (BUN_BE_BUN)");
  expect(js.version).toBe(Bun.version);
  expect(result.status).toBe("ok");
  const inside = JSON.parse(result.stdout) as { execPath: string; version: string; size: number };
  expect(inside.execPath).toBe("/opt/svc/bin/bun");
  expect(inside.version).toBe(Bun.version);
  // The runtime inside is this very executable, not some other bun that happens to be around.
  expect(inside.size).toBe(statSync(binary).size);
  expect(inside.size).not.toBe(statSync(realpathSync(process.execPath)).size);
}, 120_000);
