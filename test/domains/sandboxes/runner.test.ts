/**
 * The runner's API through real bubblewrap: languages, results and statuses, input, output,
 * streaming, cancellation, spec validation, and a host without bwrap.
 */
import { describe, expect, test } from "bun:test";
import { InvalidRunSpecError, createRunner, type RunResult } from "../../../src/domains/sandboxes/runner/index.ts";
import { sandboxRunner, sandboxTempDir } from "../../support/sandbox-runner.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const { ready } = sandboxRunner();

describe("posture", () => {
  test("reports bwrap, cgroups, verified rlimits, languages and limits", async () => {
    const p = (await ready).posture();
    expect(p.available).toBe(true);
    expect(p.reason).toBeNull();
    expect(p.bwrap_version).toMatch(/^\d+\.\d+/);
    expect(p.isolation.network).toBe("none");
    expect(p.isolation.sandbox_uid).toBe(65534);
    // As root the gateway drops to the sandbox uid before bwrap; otherwise the uid is its own.
    expect(p.isolation.uid_mode).toBe(process.getuid!() === 0 ? "setpriv" : "userns");
    if (p.cgroups.version === null) expect(p.cgroups.note).toBe("cgroups: unavailable, rlimits only");
    else expect(p.cgroups.memory || p.cgroups.pids).toBe(true);
    expect(p.rlimits.verified).toBe(true);
    expect(p.languages.map((l) => l.name)).toEqual(["python", "javascript", "bash"]);
    for (const l of p.languages) {
      expect(l.available).toBe(true);
      expect(l.version).toMatch(/^\d+\.\d+/);
    }
    expect(p.limits.defaults.timeout_ms).toBeGreaterThan(0);
    expect(p.limits.max.memory_bytes).toBeGreaterThanOrEqual(p.limits.defaults.memory_bytes!);
  });
});

describe("languages", () => {
  test("python, javascript and bash each run and print", async () => {
    const runner = await ready;
    const cases = [
      { language: "python" as const, code: "import sys\nprint('py', sys.version_info[0])" },
      { language: "javascript" as const, code: "console.log('js', typeof Bun.version)" },
      { language: "bash" as const, code: 'echo "sh ${BASH_VERSINFO[0]}"' },
    ];
    const results = await Promise.all(cases.map((c) => runner.run(c)));
    expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(results[0]!.stdout).toBe("py 3\n");
    expect(results[1]!.stdout).toBe("js string\n");
    expect(results[2]!.stdout).toMatch(/^sh \d+\n$/);
    for (const r of results) {
      expect(r.exit_code).toBe(0);
      expect(r.signal).toBeNull();
      expect(r.timed_out).toBe(false);
      expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  test("a command runs as an argv on the sandbox PATH", async () => {
    const r = await (await ready).run({ command: ["sh", "-c", 'echo "$0-$1"', "a", "b"] });
    expect(r.status).toBe("ok");
    expect(r.stdout).toBe("a-b\n");
  });

  test("programs run as the sandbox user in /workspace with only the runner's environment", async () => {
    const r = await (await ready).run({
      language: "python",
      code: "import os, json\nprint(json.dumps([os.getuid(), os.getgid(), os.getcwd(), sorted(os.environ)]))",
      env: { MY_VAR: "x" },
    });
    expect(r.status).toBe("ok");
    const [uid, gid, cwd, names] = JSON.parse(r.stdout) as [number, number, string, string[]];
    expect([uid, gid, cwd]).toEqual([65534, 65534, "/workspace"]);
    // Exactly the runner's base, the language's own, and the caller's: nothing of the host's.
    expect(names).toEqual([
      "BUN_BE_BUN",
      "BUN_RUNTIME_TRANSPILER_CACHE_PATH",
      "HOME",
      "LANG",
      "LOGNAME",
      "MY_VAR",
      "PATH",
      "PWD",
      "PYTHONPATH",
      "TMPDIR",
      "USER",
    ]);
  });
});

describe("results", () => {
  test("a non-zero exit is the program's error, not the runner's", async () => {
    const r = await (await ready).run({ language: "bash", code: "echo out; echo err >&2; exit 3" });
    expect(r).toMatchObject({ status: "error", exit_code: 3, signal: null, stdout: "out\n", stderr: "err\n", error: null });
  });

  test("a program killed by a signal reports the signal", async () => {
    const r = await (await ready).run({ language: "python", code: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)" });
    expect(r.status).toBe("error");
    expect(r.signal).toBe("SIGSEGV");
    expect(r.exit_code).toBe(128 + 11);
  });

  test("stdin, args and env reach the program", async () => {
    const r = await (await ready).run({
      language: "python",
      code: "import sys, os\nprint(sys.stdin.read().upper(), sys.argv[1:], os.environ['GREETING'])",
      stdin: "hello",
      args: ["x", "y z"],
      env: { GREETING: "hi" },
    });
    expect(r.status).toBe("ok");
    expect(r.stdout).toBe("HELLO ['x', 'y z'] hi\n");
  });

  test("files land in the one-shot workspace, which is gone afterwards", async () => {
    const runner = await ready;
    const r = await runner.run({
      language: "bash",
      code: "cat data/in.txt; ls; echo made > out.txt",
      files: { "data/in.txt": "payload\n", "top.txt": "t" },
    });
    expect(r.status).toBe("ok");
    expect(r.stdout).toBe("payload\ndata\ntop.txt\n");
    const again = await runner.run({ language: "bash", code: "ls -A" });
    expect(again.stdout).toBe("");
  });

  test("the timeout shorthand wins over limits.timeoutMs", async () => {
    const r = await (await ready).run({ language: "bash", code: "sleep 5", timeoutMs: 300, limits: { timeoutMs: 60_000 } });
    expect(r.status).toBe("timeout");
    expect(r.timed_out).toBe(true);
    expect(r.killed_reason).toBe("timeout");
    expect(r.exit_code).toBeNull();
    expect(r.signal).toBe("SIGKILL");
  });

  test("stdout past its cap is cut at exactly the cap and the run is killed", async () => {
    const r = await (await ready).run({ language: "python", code: "import sys\nwhile True: sys.stdout.write('x' * 4096)", limits: { stdoutBytes: 10_000 } });
    expect(r.status).toBe("killed");
    expect(r.killed_reason).toBe("output_limit");
    expect(r.stdout_truncated).toBe(true);
    expect(r.stdout.length).toBe(10_000);
    expect(r.stderr_truncated).toBe(false);
  });

  test("output of exactly the cap is not truncated", async () => {
    const r = await (await ready).run({ language: "python", code: "import sys\nsys.stdout.write('y' * 5000)", limits: { stdoutBytes: 5000 } });
    expect(r.status).toBe("ok");
    expect(r.stdout.length).toBe(5000);
    expect(r.stdout_truncated).toBe(false);
  });

  test("stderr has its own cap", async () => {
    const r = await (await ready).run({ language: "bash", code: "echo fine; head -c 100000 /dev/zero | tr '\\0' e >&2", limits: { stderrBytes: 1000 } });
    expect(r.status).toBe("killed");
    expect(r.stderr_truncated).toBe(true);
    expect(r.stderr.length).toBe(1000);
    expect(r.stdout).toBe("fine\n");
  });
});

describe("streaming and cancellation", () => {
  test("chunks arrive through the callbacks and add up to the result", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const dec = new TextDecoder();
    const r = await (await ready).run(
      { language: "python", code: "import sys\nfor i in range(5):\n  print(i)\nprint('e', file=sys.stderr)" },
      { onStdout: (c) => out.push(dec.decode(c)), onStderr: (c) => err.push(dec.decode(c)) },
    );
    expect(r.status).toBe("ok");
    expect(out.join("")).toBe(r.stdout);
    expect(out.join("")).toBe("0\n1\n2\n3\n4\n");
    expect(err.join("")).toBe("e\n");
  });

  test("a throwing callback does not break the run", async () => {
    const r = await (await ready).run({ language: "bash", code: "echo a" }, { onStdout: () => { throw new Error("consumer gone"); } });
    expect(r.status).toBe("ok");
    expect(r.stdout).toBe("a\n");
  });

  test("aborting kills the run", async () => {
    const ac = new AbortController();
    const r = await (await ready).run(
      { language: "bash", code: "echo started; sleep 30" },
      { signal: ac.signal, onStdout: () => ac.abort() },
    );
    expect(r.status).toBe("killed");
    expect(r.killed_reason).toBe("aborted");
    expect(r.stdout).toBe("started\n");
  });

  test("an already-aborted signal never starts a sandbox", async () => {
    const r = await (await ready).run({ language: "bash", code: "echo no" }, { signal: AbortSignal.abort() });
    expect(r.status).toBe("killed");
    expect(r.killed_reason).toBe("aborted");
    expect(r.stdout).toBe("");
  });
});

describe("spec validation", () => {
  const refused = async (spec: unknown, param: string) => {
    const runner = await ready;
    let caught: unknown = null;
    await runner.run(spec as never).catch((e: unknown) => {
      caught = e;
    });
    expect(caught).toBeInstanceOf(InvalidRunSpecError);
    expect((caught as InvalidRunSpecError).param).toBe(param);
    expect((caught as InvalidRunSpecError).type).toBe("invalid_request");
  };

  test("exactly one of code and command", async () => {
    await refused({ language: "python", code: "1", command: ["true"] }, "command");
    await refused({ language: "python" }, "code");
  });
  test("language must be known and given with code", async () => {
    await refused({ language: "cobol", code: "x" }, "language");
    await refused({ code: "print(1)" }, "language");
  });
  test("env names are checked and LD_* refused", async () => {
    await refused({ language: "bash", code: "true", env: { LD_PRELOAD: "/tmp/x.so" } }, "env.LD_PRELOAD");
    await refused({ language: "bash", code: "true", env: { BUN_BE_BUN: "0" } }, "env.BUN_BE_BUN");
    await refused({ language: "bash", code: "true", env: { "A=B": "x" } }, "env.A=B");
    await refused({ language: "bash", code: "true", env: { OK: "nul\0byte" } }, "env.OK");
  });
  test("limits outside [min, max] and unknown limits are refused, not clamped", async () => {
    const runner = await ready;
    await refused({ language: "bash", code: "true", limits: { memoryBytes: runner.max.memoryBytes + 1 } }, "limits.memoryBytes");
    await refused({ language: "bash", code: "true", limits: { processes: 1 } }, "limits.processes");
    await refused({ language: "bash", code: "true", limits: { gpus: 1 } }, "limits.gpus");
    await refused({ language: "bash", code: "true", timeoutMs: 0 }, "limits.timeoutMs");
  });
  test("file paths must stay inside the workspace", async () => {
    await refused({ language: "bash", code: "true", files: { "../x": "a" } }, "files.../x");
    await refused({ language: "bash", code: "true", files: { "/etc/x": "a" } }, "files./etc/x");
    await refused({ language: "bash", code: "true", files: { "a/b": "1", a: "2" } }, "files.a/b");
  });
  test("args go with code only", async () => {
    await refused({ command: ["true"], args: ["x"] }, "args");
  });
});

describe("a host without bubblewrap", () => {
  test("posture says so and runs are runner_error, never a program failure", async () => {
    const root = sandboxTempDir();
    const runner = await createRunner({ workspaceRoot: join(root, "ws"), stagingDir: join(root, "st"), bwrapPath: join(root, "no-bwrap") });
    try {
      const p = runner.posture();
      expect(p.available).toBe(false);
      expect(p.reason).toContain("bubblewrap");
      const r: RunResult = await runner.run({ language: "bash", code: "echo hi" });
      expect(r.status).toBe("runner_error");
      expect(r.error).toContain("bubblewrap");
      expect(r.exit_code).toBeNull();
      // A bad spec is still the caller's error.
      await expect(runner.run({ language: "bash" } as never)).rejects.toBeInstanceOf(InvalidRunSpecError);
    } finally {
      await runner.close();
    }
  });

  test("a sandbox that fails during setup is runner_error with bwrap's message", async () => {
    const root = sandboxTempDir();
    // A bwrap that works until the test flips a switch, then fails the way a broken setup does.
    const fake = join(root, "bwrap");
    const broken = join(root, "broken");
    writeFileSync(fake, `#!/bin/sh\nif [ -e ${broken} ]; then echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2; exit 1; fi\nexec ${Bun.which("bwrap")} "$@"\n`, { mode: 0o755 });
    const runner = await createRunner({ workspaceRoot: join(root, "ws"), stagingDir: join(root, "st"), bwrapPath: fake });
    try {
      expect(runner.posture().available).toBe(true);
      writeFileSync(broken, "");
      const r = await runner.run({ language: "bash", code: "echo hi" });
      expect(r.status).toBe("runner_error");
      expect(r.error).toContain("Can't mount proc");
    } finally {
      await runner.close();
    }
  });

  test("a program that imitates a bwrap failure is still the program's error", async () => {
    const r = await (await ready).run({ language: "bash", code: "echo \"bwrap: Can't mount proc\" >&2; exit 1" });
    expect(r.status).toBe("error");
    expect(r.exit_code).toBe(1);
    expect(r.error).toBeNull();
  });
});
