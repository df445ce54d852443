/**
 * Warm launchers source a script the runner writes, running as the gateway's user until
 * bwrap: its quoting must hand every argument over verbatim, whatever characters it holds.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRunner } from "../../../src/domains/sandboxes/runner/index.ts";
import { launcherScript, shellQuote } from "../../../src/domains/sandboxes/runner/launchers.ts";
import { sandboxRunner, sandboxTempDir } from "../../support/sandbox-runner.ts";

const NASTY = ["it's", "$(echo pwned)", "`echo pwned`", "a\nb", "*", "-", "--", "'", "\\", '"$HOME"', "; echo pwned", "", " lead", "x'y'z"];

describe("launcher scripts", () => {
  test("every word reaches the program verbatim", () => {
    const dir = sandboxTempDir();
    const script = join(dir, "script");
    const out = join(dir, "out");
    writeFileSync(out, "");
    writeFileSync(script, launcherScript(null, [{ fd: 3, path: out, write: true }], ["/usr/bin/printf", "%s\\0", ...NASTY]));
    const run = Bun.spawnSync(["/bin/sh", "-c", '. "$0"', script], { env: {}, stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(0);
    expect(new TextDecoder().decode(run.stdout).split("\0").slice(0, -1)).toEqual(NASTY);
    // A substitution that ran would have left a word of its own: "pwned".
    expect(new TextDecoder().decode(run.stdout).split("\0")).not.toContain("pwned");
  });

  test("NUL cannot be quoted and is refused", () => {
    expect(() => shellQuote("a\0b")).toThrow();
  });

  test("a launcher cannot redirect descriptors past 9", () => {
    expect(() => launcherScript(null, [{ fd: 10, path: "/x", write: false }], ["true"])).toThrow();
  });
});

describe("a process that never calls close()", () => {
  test("still exits, and the next runner removes the groups its launchers left", async () => {
    const dir = sandboxTempDir();
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../support/sandbox-no-close-entry.ts"), join(dir, "ws"), join(dir, "st")], {
      stdout: "pipe",
      stderr: "pipe",
    });
    // The test's own timeout is the bound: a launcher holding the process alive fails it.
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    const { pid, status, cgroups } = JSON.parse(out) as { pid: number; status: string; cgroups: string | null };
    expect(status).toBe("ok");
    if (cgroups !== "v1") return; // the check below reads v1's pids hierarchy
    const leftovers = () => readdirSync("/sys/fs/cgroup/pids").filter((n) => n.startsWith(`svc-sbx-${pid}-`));
    // Launcher shells see EOF when their parent goes and exit; their empty groups stay behind.
    const runner = await createRunner({ workspaceRoot: join(dir, "ws"), stagingDir: join(dir, "st2") });
    await runner.close();
    expect(leftovers()).toEqual([]);
  }, 20_000);
});

describe("warm and cold starts", () => {
  const warm = sandboxRunner();
  const cold = sandboxRunner({ warmLaunchers: 0 });

  test("give the same results for hostile arguments, stdin and many files", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 9; i++) files[`in/f${i}.txt`] = `file ${i}`;
    const spec = {
      language: "python" as const,
      code: "import sys, glob\nprint(repr(sys.argv[1:]), sys.stdin.read(), len(glob.glob('in/*')))",
      args: NASTY,
      stdin: "from stdin",
    };
    for (const ready of [warm.ready, cold.ready]) {
      const runner = await ready;
      // Several runs, so the warm runner serves some from its pool.
      for (let i = 0; i < 3; i++) {
        const few = await runner.run(spec);
        expect(few.status).toBe("ok");
        expect(few.stdout).toBe(`${pythonRepr(NASTY)} from stdin 0\n`);
        const many = await runner.run({ ...spec, files });
        expect(many.stdout).toBe(`${pythonRepr(NASTY)} from stdin 9\n`);
      }
    }
  });
});

/** Python's repr() of a list of str, for the few characters NASTY holds. */
function pythonRepr(list: string[]): string {
  const one = (s: string) => {
    const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
    let body = s.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
    if (quote === "'") body = body.replaceAll("'", "\\'");
    return `${quote}${body}${quote}`;
  };
  return `[${list.map(one).join(", ")}]`;
}
