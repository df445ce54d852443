/**
 * src/core/outbound-requests.ts: the limit `svc serve` asks Bun's fetch for, read from the
 * open-files limit, and the re-exec that sets it before the program loads — with a stand-in
 * process whose execve only records its call (test/e2e/outbound-requests-binary.test.ts runs
 * the real one, through the compiled binary).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  BUN_DEFAULT_OUTBOUND,
  BUN_MAX_OUTBOUND,
  hardOpenFilesLimit,
  OUTBOUND_ENV,
  outboundLimit,
  outboundLimitFor,
  raiseOutboundLimit,
  relaunchArgv,
  SVC_DEFAULT_OUTBOUND,
} from "../../src/core/outbound-requests.ts";

/** /proc/self/limits as Linux writes it (fixed-width columns, trailing spaces kept). */
function limitsText(soft: string, hard: string): string {
  const row = (name: string, s: string, h: string, units: string) => `${name.padEnd(26)}${s.padEnd(21)}${h.padEnd(21)}${units.padEnd(10)}`;
  return [
    row("Limit", "Soft Limit", "Hard Limit", "Units"),
    row("Max cpu time", "unlimited", "unlimited", "seconds"),
    row("Max file size", "unlimited", "unlimited", "bytes"),
    row("Max data size", "unlimited", "unlimited", "bytes"),
    row("Max stack size", "8388608", "unlimited", "bytes"),
    row("Max core file size", "0", "unlimited", "bytes"),
    row("Max resident set", "unlimited", "unlimited", "bytes"),
    row("Max processes", "96365", "96365", "processes"),
    row("Max open files", soft, hard, "files"),
    row("Max locked memory", "8388608", "8388608", "bytes"),
    row("Max address space", "unlimited", "unlimited", "bytes"),
    row("Max file locks", "unlimited", "unlimited", "locks"),
    row("Max pending signals", "96365", "96365", "signals"),
    row("Max msgqueue size", "819200", "819200", "bytes"),
    row("Max nice priority", "0", "0", ""),
    row("Max realtime priority", "0", "0", ""),
    row("Max realtime timeout", "unlimited", "unlimited", "us"),
    "",
  ].join("\n");
}

describe("outboundLimitFor: half the hard open-files limit less 512, from 256 to 16384", () => {
  const rows: [string, number | null, number][] = [
    ["unknown (null)", null, SVC_DEFAULT_OUTBOUND],
    ["unlimited (Infinity)", Number.POSITIVE_INFINITY, SVC_DEFAULT_OUTBOUND],
    ["NaN", Number.NaN, SVC_DEFAULT_OUTBOUND],
    ["0", 0, BUN_DEFAULT_OUTBOUND],
    ["256", 256, BUN_DEFAULT_OUTBOUND],
    ["512 (all reserved)", 512, BUN_DEFAULT_OUTBOUND],
    ["1024 (a common default)", 1024, 256],
    ["1026", 1026, 257],
    ["4096", 4096, 1792],
    ["20000", 20_000, 9744],
    ["20001 (rounded down)", 20_001, 9744],
    ["33280 (exactly the ceiling)", 33_280, 16_384],
    ["524288 (systemd's hard default)", 524_288, SVC_DEFAULT_OUTBOUND],
    ["1048576 (Docker's)", 1_048_576, SVC_DEFAULT_OUTBOUND],
    ["2^31", 2 ** 31, SVC_DEFAULT_OUTBOUND],
  ];
  for (const [label, openFiles, expected] of rows) {
    test(`${label} → ${expected}`, () => {
      expect(outboundLimitFor(openFiles)).toBe(expected);
    });
  }

  test("never outside Bun's range, whatever the input", () => {
    for (const n of [-1, 0, 1, 1000, 10_000, 100_000, 1e9, Number.MAX_SAFE_INTEGER]) {
      const limit = outboundLimitFor(n);
      expect(Number.isInteger(limit)).toBe(true);
      expect(limit).toBeGreaterThanOrEqual(BUN_DEFAULT_OUTBOUND);
      expect(limit).toBeLessThanOrEqual(Math.min(SVC_DEFAULT_OUTBOUND, BUN_MAX_OUTBOUND));
    }
  });
});

describe("hardOpenFilesLimit reads the hard column of /proc/self/limits", () => {
  test.each([
    ["soft 1024, hard 524288", limitsText("1024", "524288"), 524_288],
    ["both 20000", limitsText("20000", "20000"), 20_000],
    ["hard unlimited", limitsText("1024", "unlimited"), Number.POSITIVE_INFINITY],
    ["the soft column is not read", limitsText("unlimited", "4096"), 4096],
  ] as const)("%s", (_label, text, expected) => {
    expect(hardOpenFilesLimit(text)).toBe(expected);
  });

  test("this machine's own file parses to a positive number", () => {
    const own = hardOpenFilesLimit(readFileSync("/proc/self/limits", "utf8"));
    expect(own).not.toBeNull();
    expect(own!).toBeGreaterThan(0);
  });

  test.each([
    ["empty", ""],
    ["garbage", "not a limits file\n\u0000\u0001"],
    ["no open-files row", limitsText("1", "1").replace(/^Max open files.*$/m, "")],
    ["row cut short", "Max open files            1024"],
    ["hard is a word", limitsText("1024", "lots")],
    ["hard is 0", limitsText("0", "0")],
    ["hard is negative", limitsText("1", "-5")],
    ["hard is fractional", limitsText("1", "10.5")],
    ["row indented (not at line start)", `  ${limitsText("1024", "4096").split("\n")[8]}`],
  ] as const)("%s → null", (_label, text) => {
    expect(hardOpenFilesLimit(text)).toBeNull();
  });
});

describe("relaunchArgv: the argument vector that starts the same program again", () => {
  test("compiled: argv[1] (the embedded entry) is dropped, argv0 and the command line kept", () => {
    expect(relaunchArgv("/usr/local/bin/svc", ["bun", "/$bunfs/root/svc", "serve", "--data-dir", "/var/lib/svc"], [])).toEqual([
      "/usr/local/bin/svc",
      "serve",
      "--data-dir",
      "/var/lib/svc",
    ]);
    expect(relaunchArgv("./svc", ["bun", "/$bunfs/root/svc", "node", "serve"], [])).toEqual(["./svc", "node", "serve"]);
  });

  test("compiled on Windows (B:/~BUN/): the same", () => {
    expect(relaunchArgv("svc.exe", ["bun", "B:/~BUN/root/svc.exe", "serve"], [])).toEqual(["svc.exe", "serve"]);
  });

  test("from source: bun's own flags go back in, and the script stays", () => {
    expect(relaunchArgv("bun", ["/usr/bin/bun", "/src/svc/cli/main.ts", "serve", "--listen", "127.0.0.1:8080"], ["--smol", "--inspect"])).toEqual([
      "bun",
      "--smol",
      "--inspect",
      "/src/svc/cli/main.ts",
      "serve",
      "--listen",
      "127.0.0.1:8080",
    ]);
    expect(relaunchArgv("bun", ["/usr/bin/bun", "cli/main.ts", "serve"], [])).toEqual(["bun", "cli/main.ts", "serve"]);
  });

  test("inputs are not modified", () => {
    const argv = ["bun", "/$bunfs/root/svc", "serve"];
    const execArgv = ["--smol"];
    relaunchArgv("svc", argv, execArgv);
    expect(argv).toEqual(["bun", "/$bunfs/root/svc", "serve"]);
    expect(execArgv).toEqual(["--smol"]);
  });
});

describe("outboundLimit: what the process runs with", () => {
  const rows: [string, Record<string, string | undefined>, number][] = [
    ["unset", {}, BUN_DEFAULT_OUTBOUND],
    ["a number", { [OUTBOUND_ENV]: "9744" }, 9744],
    ["1", { [OUTBOUND_ENV]: "1" }, 1],
    ["the operator's 40", { [OUTBOUND_ENV]: "40" }, 40],
    ["65535 (Bun's most)", { [OUTBOUND_ENV]: "65535" }, BUN_MAX_OUTBOUND],
    ["leading zero (Bun reads 40)", { [OUTBOUND_ENV]: "040" }, 40],
    ["plus sign (Bun reads 40)", { [OUTBOUND_ENV]: "+40" }, 40],
    ["empty", { [OUTBOUND_ENV]: "" }, BUN_DEFAULT_OUTBOUND],
    ["0", { [OUTBOUND_ENV]: "0" }, BUN_DEFAULT_OUTBOUND],
    ["negative", { [OUTBOUND_ENV]: "-3" }, BUN_DEFAULT_OUTBOUND],
    ["fractional", { [OUTBOUND_ENV]: "12.5" }, BUN_DEFAULT_OUTBOUND],
    ["a word", { [OUTBOUND_ENV]: "many" }, BUN_DEFAULT_OUTBOUND],
  ];
  for (const [label, env, expected] of rows) {
    test(`${label} → ${expected}`, () => {
      expect(outboundLimit(env)).toBe(expected);
    });
  }

  test("defaults to process.env", () => {
    expect(outboundLimit()).toBe(outboundLimit(process.env));
  });

  // What Bun (1.4.5) itself does with each, measured with 300 fetches against a held local
  // server: a base-10 u16 (Zig's parseInt, "_" between digits allowed) or an error and 256.
  for (const [value, bunUses] of [
    ["100000", BUN_DEFAULT_OUTBOUND],
    [" 40", BUN_DEFAULT_OUTBOUND],
    ["40 ", BUN_DEFAULT_OUTBOUND],
    ["0x28", BUN_DEFAULT_OUTBOUND],
    ["1e2", BUN_DEFAULT_OUTBOUND],
    ["4_0", 40],
  ] as const) {
    test(`Bun reads ${JSON.stringify(value)} as ${bunUses}, and so does outboundLimit`, () => {
      expect(outboundLimit({ [OUTBOUND_ENV]: value })).toBe(bunUses);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// raiseOutboundLimit with a stand-in process

interface ExecveCall {
  file: string;
  args: string[];
  env: Record<string, string | undefined>;
}

function fakeProcess(argv: string[], options: { env?: Record<string, string | undefined>; execve?: "record" | "throws" | "absent"; execArgv?: string[] } = {}) {
  const calls: ExecveCall[] = [];
  const env: Record<string, string | undefined> = { PATH: "/usr/bin:/bin", HOME: "/home/svc", ...options.env };
  const mode = options.execve ?? "record";
  const proc = {
    argv,
    argv0: "/usr/local/bin/svc",
    execArgv: options.execArgv ?? [],
    execPath: "/usr/local/bin/svc",
    env,
    execve:
      mode === "absent"
        ? undefined
        : (file: string, args: string[], nextEnv: Record<string, string | undefined>): never => {
            calls.push({ file, args, env: nextEnv });
            if (mode === "throws") throw new Error("EPERM: operation not permitted, execve");
            // The real one does not return; the stand-in has to, so it records and returns.
            return undefined as never;
          },
  };
  return { proc, calls, envBefore: { ...env } };
}

const compiled = (...words: string[]) => ["bun", "/$bunfs/root/svc", ...words];
const LIMITS_20000 = () => limitsText("20000", "20000");

describe("raiseOutboundLimit", () => {
  test.each([
    ["serve", compiled("serve", "--data-dir", "/var/lib/svc", "--listen", "0.0.0.0:8080")],
    ["serve with no options", compiled("serve")],
    ["serve --help", compiled("serve", "--help")],
  ])("%s: starts over as itself with the variable set from the hard limit", (_label, argv) => {
    const { proc, calls, envBefore } = fakeProcess(argv, { env: { SVC_LOG_LEVEL: "info" } });
    raiseOutboundLimit(proc, LIMITS_20000);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.file).toBe("/usr/local/bin/svc");
    expect(calls[0]!.args).toEqual(["/usr/local/bin/svc", ...argv.slice(2)]);
    // The environment is passed on whole, with the variable added.
    expect(calls[0]!.env).toEqual({ ...envBefore, [OUTBOUND_ENV]: "9744" });
    // ...and this process's own env is left as it was (the new image gets its own).
    expect(proc.env).toEqual(envBefore);
  });

  test("from source: execArgv and the script go back in", () => {
    const { proc, calls } = fakeProcess(["/usr/bin/bun", "/src/svc/cli/main.ts", "serve"], { execArgv: ["--smol"] });
    proc.argv0 = "bun";
    proc.execPath = "/usr/bin/bun";
    raiseOutboundLimit(proc, LIMITS_20000);
    expect(calls).toEqual([{ file: "/usr/bin/bun", args: ["bun", "--smol", "/src/svc/cli/main.ts", "serve"], env: expect.objectContaining({ [OUTBOUND_ENV]: "9744" }) }]);
  });

  test.each([
    ["hard 1024", "256", limitsText("1024", "1024")],
    ["hard 4096", "1792", limitsText("1024", "4096")],
    ["hard unlimited", "16384", limitsText("1024", "unlimited")],
    ["hard 524288", "16384", limitsText("1024", "524288")],
    ["limits unreadable as such", "16384", "garbage"],
  ])("%s → %s", (_label, expected, limits) => {
    const { proc, calls } = fakeProcess(compiled("serve"));
    raiseOutboundLimit(proc, () => limits);
    expect(calls.map((c) => c.env[OUTBOUND_ENV])).toEqual([expected]);
  });

  test("no /proc (readLimits throws): falls back to 16384", () => {
    const { proc, calls } = fakeProcess(compiled("serve"));
    raiseOutboundLimit(proc, () => {
      throw Object.assign(new Error("ENOENT: no such file or directory, open '/proc/self/limits'"), { code: "ENOENT" });
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.env[OUTBOUND_ENV]).toBe(String(SVC_DEFAULT_OUTBOUND));
  });

  test.each([
    ["version", compiled("version")],
    ["--version", compiled("--version")],
    ["keys list", compiled("keys", "list", "--data-dir", "/var/lib/svc")],
    ["setup", compiled("setup", "--yes")],
    ["node serve (a fleet node sends a handful of requests)", compiled("node", "serve", "--gateway", "https://gw.example")],
    ["node with another subcommand", compiled("node", "status")],
    ["nodes list (the admin group)", compiled("nodes", "list")],
    ["serve as a later word", compiled("keys", "serve")],
    ["no command", compiled()],
  ])("%s: not relaunched", (_label, argv) => {
    let read = 0;
    const { proc, calls, envBefore } = fakeProcess(argv);
    raiseOutboundLimit(proc, () => {
      read++;
      return LIMITS_20000();
    });
    expect(calls).toHaveLength(0);
    expect(read).toBe(0); // nothing read for a command that sends a handful of requests
    expect(proc.env).toEqual(envBefore);
  });

  test.each(["256", "40", "16384", "100000", "nonsense"])("the operator's value (%p) is kept: not relaunched", (value) => {
    const { proc, calls } = fakeProcess(compiled("serve"), { env: { [OUTBOUND_ENV]: value } });
    raiseOutboundLimit(proc, LIMITS_20000);
    expect(calls).toHaveLength(0);
    expect(proc.env[OUTBOUND_ENV]).toBe(value);
  });

  test("an empty value (a cleared Environment= line) counts as unset: relaunched with one", () => {
    const { proc, calls } = fakeProcess(compiled("serve"), { env: { [OUTBOUND_ENV]: "" } });
    raiseOutboundLimit(proc, LIMITS_20000);
    expect(calls.map((c) => c.env[OUTBOUND_ENV])).toEqual(["9744"]);
  });

  test("execve throws (seccomp, no /proc/self/exe…): returns, and the server runs as before", () => {
    const { proc, calls, envBefore } = fakeProcess(compiled("serve"), { execve: "throws" });
    expect(() => raiseOutboundLimit(proc, LIMITS_20000)).not.toThrow();
    expect(calls).toHaveLength(1);
    expect(proc.env).toEqual(envBefore);
    expect(outboundLimit(proc.env)).toBe(BUN_DEFAULT_OUTBOUND); // what the serving log line then says
  });

  test("no execve on this platform: returns without reading the limits", () => {
    let read = 0;
    const { proc } = fakeProcess(compiled("serve"), { execve: "absent" });
    expect(() =>
      raiseOutboundLimit(proc, () => {
        read++;
        return LIMITS_20000();
      }),
    ).not.toThrow();
    expect(read).toBe(0);
  });

  test("the real process object has an execve of the expected shape (what cli/main.ts relies on)", () => {
    expect(typeof (process as unknown as { execve?: unknown }).execve).toBe("function");
    expect(Array.isArray(process.execArgv)).toBe(true);
    expect(typeof process.argv0).toBe("string");
  });
});
