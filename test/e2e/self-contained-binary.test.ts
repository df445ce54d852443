/**
 * The binary needs nothing from the checkout it was built in. Every other binary test runs on
 * the machine that built it, where the source tree is still on disk at the path the build saw —
 * so code that loaded something from there instead of from the binary passed them all. It did:
 * the bytecode build's CommonJS bundle keeps the build machine's source paths in import.meta, the
 * receipt signing and WAL checkpoint threads were loaded from the checkout, and on an installed
 * machine neither started (src/core/compiled.ts).
 *
 * Here `svc setup` and `svc serve` run in a mount namespace of their own, with the checkout's
 * src/, cli/, console/, migrations/ and node_modules/ covered by empty tmpfs mounts, as on a
 * machine that only has the binary. Then: the database is migrated, `svc doctor` starts both
 * threads, serve's signing thread signs its probe (the serving log counts it), its checkpoint
 * thread runs until stop, and the console's embedded page and files are served.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, runSvc, serveSvc, svcBinary } from "../support/binary.ts";
import { tempDir } from "../support/harness.ts";

const HIDDEN = ["src", "cli", "console", "migrations", "node_modules"].map((d) => join(ROOT, d));

/** `unshare` as root; an unprivileged user namespace mapped to root otherwise (where the kernel allows one). */
function namespacePrefix(): string[] {
  const unshare = process.getuid?.() === 0 ? ["unshare", "--mount"] : ["unshare", "--user", "--map-root-user", "--mount"];
  const mounts = HIDDEN.map((d) => `mount -t tmpfs svc-hidden '${d}'`).join(" && ");
  // exec all the way down: the PID spawned is svc's, so stop() signals svc itself.
  return [...unshare, "--", "sh", "-c", `${mounts} && exec "$0" "$@"`];
}

const canHide = (): boolean => Bun.spawnSync([...namespacePrefix(), "true"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

beforeAll(async () => {
  await svcBinary();
}, 120_000);

test.skipIf(!canHide())(
  "setup and serve run from the binary alone: migrations, signing and checkpoint threads, the console's files",
  async () => {
    const prefix = namespacePrefix();
    // The namespace really hides the checkout.
    const hidden = Bun.spawnSync([...prefix, "ls", "-A", join(ROOT, "src")], { stdout: "pipe" });
    expect(hidden.exitCode).toBe(0);
    expect(hidden.stdout.toString()).toBe("");

    const dir = tempDir("svc-alone");
    const setup = await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off"], { prefix });
    expect(setup.code).toBe(0);
    // The operator's check starts each thread too.
    const doctor = await runSvc(["doctor", "--data-dir", dir, "--json"], { prefix, env: { SVC_SIGN_WORKERS: "1" } });
    expect(JSON.parse(doctor.stdout).find((c: { name: string }) => c.name === "threads")).toEqual({
      name: "threads",
      status: "ok",
      message: "1 receipt signing thread and the WAL checkpoint thread start",
    });

    const served = await serveSvc(dir, { prefix, env: { SVC_LOG_LEVEL: "debug", SVC_SIGN_WORKERS: "1" } });
    try {
      const status = await fetch(`${served.url}/v1/status`);
      expect(status.status).toBe(200);

      const shell = await (await fetch(`${served.url}/console/`)).text();
      const assets = [...shell.matchAll(/\/console\/assets\/[^"']+/g)].map((m) => m[0]);
      expect(assets.length).toBeGreaterThanOrEqual(2); // the script and the stylesheet
      for (const asset of assets) {
        const res = await fetch(`${served.url}${asset}`);
        expect(res.status).toBe(200);
        expect((await res.text()).length).toBeGreaterThan(1000);
      }
    } finally {
      expect(await served.stop()).toBe(0);
    }

    const lines = served
      .log()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { level: string; msg: string; signing_threads?: number; keccak?: string; error?: string });
    const problems = lines.filter((l) => /signing threads did not start|checkpoints are back on the serving connection/.test(l.msg));
    expect(problems).toEqual([]);
    // The signing thread runs, and receipts are hashed by the embedded WebAssembly keccak.
    expect(lines.find((l) => l.msg.startsWith("receipts are signed with"))).toMatchObject({ signing_threads: 1, keccak: "hash-wasm" });
    expect(lines.some((l) => l.msg === "checkpoint thread stopped")).toBe(true);
  },
  60_000,
);
