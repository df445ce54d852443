/** The svc CLI, through the compiled binary: help, exit codes, setup, migrate, doctor, admin. */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandTree } from "../../cli/tree.ts";
import { type Command, type Group, isGroup } from "../../src/cli/command.ts";
import { loadConfig } from "../../src/open.ts";
import { openContext } from "../../src/open.ts";
import { silentLogger } from "../../src/core/log.ts";
import { sha256Hex } from "../../src/core/secrets.ts";
import { createAccount, getAccount } from "../../src/domains/accounts/service.ts";
import { VERSION } from "../../src/version.ts";
import { runSvc, svcBinary } from "../support/binary.ts";
import { svcInProcess } from "../support/cli-inprocess.ts";
import { onCleanup } from "../support/cleanup.ts";
import { tempDir } from "../support/harness.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

function allCommands(group: Group): Command[] {
  return group.commands.flatMap((c) => (isGroup(c) ? allCommands(c) : [c]));
}
function allGroups(group: Group): Group[] {
  return [group, ...group.commands.filter(isGroup).flatMap(allGroups)];
}

async function setUp(extra: string[] = []) {
  const dir = join(tempDir(), "data");
  const r = await runSvc(["setup", "--yes", "--data-dir", dir, ...extra]);
  expect(r.code).toBe(0);
  return { dir, out: r.stdout };
}

function withCtx<T>(dir: string, fn: (ctx: ReturnType<typeof openContext>) => T): T {
  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger });
  try {
    return fn(ctx);
  } finally {
    ctx.close();
  }
}

describe("help and exit codes", () => {
  test("--help works on every command and group, exit 0", async () => {
    const checks: [string[], string][] = [
      ...allCommands(commandTree).map((cmd): [string[], string] => [[...cmd.name.split(" "), "--help"], `Usage: svc ${cmd.name}`]),
      ...allGroups(commandTree).map((group): [string[], string] => [[...group.name.split(" ").filter(Boolean), "--help"], "Commands:"]),
    ];
    // Every command through the CLI tree in this process (the same dispatch the binary runs)…
    const results: { args: string[]; code: number; shows: boolean }[] = [];
    for (const [args, shows] of checks) {
      const r = await svcInProcess(...args);
      results.push({ args, code: r.code, shows: r.out.includes(shows) });
    }
    expect(results.filter((r) => r.code !== 0 || !r.shows)).toEqual([]);
    expect(results.length).toBe(checks.length);
    // …and every top-level group through the compiled binary, a few processes at a time: a
    // hundred-odd binary starts took 18 s on a loaded 2-core machine, too near a test timeout.
    const groups = checks.filter(([args, shows]) => shows === "Commands:" && args.length <= 2);
    for (let i = 0; i < groups.length; i += 4) {
      const batch = groups.slice(i, i + 4);
      const ran = await Promise.all(batch.map(([args]) => runSvc(args)));
      ran.forEach((r, j) => expect({ args: batch[j]![0], code: r.code, shows: r.stdout.includes(batch[j]![1]) }).toEqual({ args: batch[j]![0], code: 0, shows: true }));
    }
  }, 120_000);

  test("usage errors exit 2; version prints the version", async () => {
    expect((await runSvc([])).code).toBe(2);
    expect((await runSvc(["frobnicate"])).code).toBe(2);
    expect((await runSvc(["admin"])).code).toBe(2);
    const badFlag = await runSvc(["migrate", "--nope"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("--nope");
    expect((await runSvc(["admin", "suspend"])).code).toBe(2); // missing ACCOUNT_ID
    expect((await runSvc(["admin", "denylist", "add", "xyz"])).code).toBe(2);
    const v = await runSvc(["version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain(`svc ${VERSION}`);
    expect((await runSvc(["--version"])).stdout).toContain(VERSION);
  });
});

describe("svc setup", () => {
  test("creates config, keys and database; a re-run keeps every key and says so", async () => {
    const { dir, out } = await setUp(["--listen", "127.0.0.1:18181", "--generate-admin-token"]);
    expect(out).toContain("created  master key");
    expect(out).toContain("created  receipt signer key");
    const token = /admin token \(shown once[^)]*\): (\S+)/.exec(out)![1]!;
    expect(statSync(join(dir, "master.key")).mode & 0o777).toBe(0o600);
    const master = readFileSync(join(dir, "master.key"));
    const signer = readFileSync(join(dir, "signer.key"));
    const config = loadConfig({ dataDir: dir }, {});
    expect(config.listen).toBe("127.0.0.1:18181");
    expect(config.admin.token_sha256).toBe(sha256Hex(token));
    expect(readFileSync(join(dir, "svc.toml"), "utf8")).not.toContain(token);

    const again = await runSvc(["setup", "--yes", "--data-dir", dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("kept     master key");
    expect(again.stdout).toContain("kept     receipt signer key");
    expect(again.stdout).not.toContain("created");
    expect(readFileSync(join(dir, "master.key")).equals(master)).toBe(true);
    expect(readFileSync(join(dir, "signer.key")).equals(signer)).toBe(true);

    const changed = await runSvc(["setup", "--yes", "--data-dir", dir, "--metrics-token", "m-token-123"]);
    expect(changed.stdout).toContain("changed  config");
    expect(loadConfig({ dataDir: dir }, {}).metrics.token_sha256).toBe(sha256Hex("m-token-123"));
    expect(loadConfig({ dataDir: dir }, {}).admin.token_sha256).toBe(sha256Hex(token));
  });

  test("a config file outside the data dir records where the data is", async () => {
    const etc = tempDir();
    const data = join(tempDir(), "var");
    const r = await runSvc(["setup", "--yes", "--config", join(etc, "svc.toml"), "--data-dir", data]);
    expect(r.code).toBe(0);
    expect(loadConfig({ config: join(etc, "svc.toml") }, {}).data_dir).toBe(data);
  });

  test("on a terminal it asks, and writes what was answered", async () => {
    const bin = await svcBinary();
    const dir = join(tempDir(), "data");
    // `script` gives the wizard a real pseudo-terminal; answers are typed when each question shows.
    const proc = Bun.spawn(["script", "-qfec", `stty cols 160 rows 50; ${bin} setup --data-dir ${dir}`, "/dev/null"], {
      stdin: "pipe",
      stdout: "pipe",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm" },
    });
    // If an answer never comes, the wizard (and the terminal around it) must not outlive the test.
    onCleanup(() => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    });
    let screen = "";
    const reading = (async () => {
      for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) screen += new TextDecoder().decode(chunk);
    })();
    const answer = async (question: string, keys: string) => {
      for (let i = 0; i < 250 && !screen.includes(question); i++) await Bun.sleep(20);
      expect(screen).toContain(question);
      await Bun.sleep(30);
      proc.stdin.write(keys);
      proc.stdin.flush();
    };
    await answer("Address to listen on", "\x7f".repeat(4) + "9191\r"); // 127.0.0.1:8080 → 127.0.0.1:9191
    await answer("Public URL", "\r");
    await answer("Where should database replicas go", "\r");
    await answer("Treasury address", "\r"); // empty: deposits stay off
    await answer("Enable the admin API", "\r");
    await answer("Enable /metrics", "\x1b[C\r"); // → No
    expect(await proc.exited).toBe(0);
    await reading;
    const config = loadConfig({ dataDir: dir }, {});
    expect(config.listen).toBe("127.0.0.1:9191");
    expect(config.public_url).toBe("http://127.0.0.1:9191");
    const token = /admin token \(shown once[^)]*\): (\S+)/.exec(screen)?.[1];
    expect(config.admin.token_sha256).toBe(sha256Hex(token!));
    expect(config.metrics.token_sha256).toBeNull();
    expect(config.backup.replica).toBe(`file://${dir}-replica`);
  }, 30_000);

  test("without a terminal it needs --yes; bad flags are refused before anything is written", async () => {
    const dir = join(tempDir(), "data");
    const r = await runSvc(["setup", "--data-dir", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--yes");
    const bad = await runSvc(["setup", "--yes", "--data-dir", dir, "--listen", "nowhere"]);
    expect(bad.code).toBe(2);
    expect(() => statSync(dir)).toThrow();
  });
});

describe("svc migrate and svc doctor", () => {
  test("migrate reports an up-to-date database; commands fail with a hint before setup", async () => {
    const { dir } = await setUp();
    const r = await runSvc(["migrate", "--data-dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("up to date");
    const none = await runSvc(["admin", "metrics", "--data-dir", join(tempDir(), "empty")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("svc setup");
  });

  test("doctor passes on a fresh setup and fails, with a fix, on a broken one", async () => {
    const { dir } = await setUp(["--listen", "127.0.0.1:18182"]);
    const good = await runSvc(["doctor", "--data-dir", dir, "--json"]);
    expect(good.code).toBe(0);
    const checks = JSON.parse(good.stdout) as { name: string; status: string; message: string; fix?: string }[];
    expect(checks.filter((c) => c.status === "fail")).toEqual([]);
    for (const name of ["config", "master key", "signer key", "receipt signing", "threads", "database", "migrations", "listen", "bubblewrap", "sandboxes", "litestream"]) {
      expect(checks.map((c) => c.name)).toContain(name);
    }
    // The compiled binary loads libsecp256k1 through bun:ffi when it is installed (test/run.sh installs it).
    const signing = checks.find((c) => c.name === "receipt signing")!;
    expect(signing.status === "ok" ? signing.message : "noble").toMatch(/^libsecp256k1 \(.*; keccak by hash-wasm$|^noble$/);
    const js = await runSvc(["doctor", "--data-dir", dir, "--json"], { env: { SVC_SECP256K1: "js" } });
    expect(JSON.parse(js.stdout).find((c: { name: string }) => c.name === "receipt signing")).toMatchObject({ status: "ok", message: "@noble/secp256k1 (JavaScript); keccak by hash-wasm" });
    const missing = await runSvc(["doctor", "--data-dir", dir], { env: { SVC_SECP256K1: "/nonexistent/libsecp256k1.so" } });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/FAIL {2}receipt signing: receipts\.secp256k1 = "\/nonexistent\/libsecp256k1\.so" cannot be used/);
    // The sandbox check starts a throwaway runner (its self-test sandbox included) and reports what runs here.
    const sandboxes = checks.find((c) => c.name === "sandboxes") as { status: string; detail?: string; message?: string };
    expect(sandboxes.status).toBe("ok");
    expect(JSON.stringify(sandboxes)).toContain("python");
    writeFileSync(join(dir, "svc.db"), "this is not a database, just junk bytes to make SQLite unhappy".repeat(100));
    rmSync(join(dir, "svc.db-wal"), { force: true });
    const bad = await runSvc(["doctor", "--data-dir", dir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL {2}database/);
    rmSync(join(dir, "master.key"));
    const noKey = await runSvc(["doctor", "--data-dir", dir]);
    expect(noKey.stdout).toMatch(/FAIL {2}master key: .* is missing/);
    expect(noKey.stdout).toContain("fix: run `svc setup`");
  });
});

describe("svc admin", () => {
  test("suspend, unsuspend, denylist and metrics act on the database and are audited as cli", async () => {
    const { dir } = await setUp();
    const account = withCtx(dir, (ctx) => createAccount(ctx));
    const s = await runSvc(["admin", "suspend", account.id, "--reason", "fraud review", "--data-dir", dir]);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain(`suspended ${account.id}`);
    expect(withCtx(dir, (ctx) => getAccount(ctx, account.id)).suspended_reason).toBe("fraud review");
    expect((await runSvc(["admin", "unsuspend", account.id, "--data-dir", dir])).code).toBe(0);
    expect(withCtx(dir, (ctx) => getAccount(ctx, account.id)).suspended).toBe(false);
    const missing = await runSvc(["admin", "suspend", "acct_nope", "--data-dir", dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("not found");

    const payload = join(tempDir(), "payload.json");
    writeFileSync(payload, '{"evil":true}');
    const add = await runSvc(["admin", "denylist", "add", "--file", payload, "--reason", "abuse", "--data-dir", dir]);
    expect(add.code).toBe(0);
    const sha = sha256Hex('{"evil":true}');
    expect(add.stdout).toContain(`denied ${sha}`);
    const list = await runSvc(["admin", "denylist", "list", "--json", "--data-dir", dir]);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ sha256: sha, reason: "abuse" })]);
    expect((await runSvc(["admin", "denylist", "remove", sha, "--data-dir", dir])).code).toBe(0);
    expect((await runSvc(["admin", "denylist", "list", "--data-dir", dir])).stdout).toContain("empty");

    const m = await runSvc(["admin", "metrics", "--json", "--data-dir", dir]);
    expect(JSON.parse(m.stdout).accounts).toEqual({ total: 1, suspended: 0, paying: 0 });
    expect((await runSvc(["admin", "metrics", "--data-dir", dir])).stdout).toContain("accounts: 1 (0 paying, 0 suspended)");
    const audit = withCtx(dir, (ctx) => ctx.audit.recent());
    expect(audit.map((a) => a.action)).toEqual(["denylist.remove", "denylist.add", "account.unsuspend", "account.suspend"]);
    expect(audit.every((a) => a.actor === "cli")).toBe(true);
  });
});

describe("svc accounts", () => {
  test("create for a wallet (idempotent), list and show by id or wallet", async () => {
    const { dir } = await setUp(["--replica", "off"]);
    const wallet = "0x6fcEB1e041201cC8E13c71A0e169A208F68718b4";
    const made = await runSvc(["accounts", "create", "--wallet", wallet.toLowerCase(), "--data-dir", dir]);
    expect(made.code).toBe(0);
    const id = /created (acct_\S+)/.exec(made.stdout)![1]!;
    const again = await runSvc(["accounts", "create", "--wallet", wallet, "--data-dir", dir, "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ id, created: false, wallets: [wallet] });
    const list = await runSvc(["accounts", "list", "--json", "--data-dir", dir]);
    expect(JSON.parse(list.stdout).map((a: { id: string }) => a.id)).toEqual([id]);
    const byWallet = await runSvc(["accounts", "show", wallet.toUpperCase().replace("0X", "0x"), "--data-dir", dir]);
    expect(byWallet.stdout).toContain(`account:   ${id}`);
    expect(byWallet.stdout).toContain(`wallets:   ${wallet}`);
    expect((await runSvc(["accounts", "show", "acct_nope", "--data-dir", dir])).code).toBe(1);
    expect((await runSvc(["accounts", "create", "--data-dir", dir])).code).toBe(2);
    expect((await runSvc(["accounts", "create", "--wallet", "0x12", "--data-dir", dir])).code).toBe(2);
  });
});

describe("svc keys", () => {
  test("mint (secret once), list, revoke", async () => {
    const { dir } = await setUp(["--replica", "off"]);
    const account = withCtx(dir, (ctx) => createAccount(ctx));
    const made = await runSvc(["keys", "mint", "--account", account.id, "--name", "ops", "--scopes", "inference,billing:read", "--cap", "2.50", "--data-dir", dir]);
    expect(made.code).toBe(0);
    const key = /key \(shown once[^)]*\): (sk-svc_\S+)/.exec(made.stdout)![1]!;
    const id = /minted (key_\S+)/.exec(made.stdout)![1]!;
    expect(made.stdout).toContain("monthly cap $2.50");
    const list = await runSvc(["keys", "list", "--account", account.id, "--json", "--data-dir", dir]);
    const keys = JSON.parse(list.stdout);
    expect(keys).toEqual([expect.objectContaining({ id, name: "ops", scopes: ["billing:read", "inference"], monthly_cap_micro_usd: 2_500_000 })]);
    expect(list.stdout).not.toContain(key);
    expect((await runSvc(["keys", "revoke", id, "--data-dir", dir])).stdout).toContain(`revoked ${id}`);
    expect((await runSvc(["keys", "list", "--account", account.id, "--json", "--data-dir", dir])).stdout.trim()).toBe("[]");
    expect((await runSvc(["keys", "mint", "--account", account.id, "--scopes", "teleport", "--data-dir", dir])).code).toBe(2);
    expect((await runSvc(["keys", "mint", "--account", "acct_nope", "--data-dir", dir])).code).toBe(1);
    expect((await runSvc(["keys", "revoke", "key_nope", "--data-dir", dir])).code).toBe(1);
  });
});

describe("svc admin credit", () => {
  test("grant and debit are ledger adjustments, audited, visible in admin metrics; never below spendable", async () => {
    const { dir } = await setUp(["--replica", "off"]);
    const account = withCtx(dir, (ctx) => createAccount(ctx));
    const grant = await runSvc(["admin", "credit", "grant", "--account", account.id, "--micro-usd", "5000000", "--reason", "trial", "--data-dir", dir]);
    expect(grant.code).toBe(0);
    expect(grant.stdout).toContain("balance now $5.00");
    expect((await runSvc(["admin", "credit", "debit", "--account", account.id, "--micro-usd", "1500000", "--reason", "correction", "--data-dir", dir])).code).toBe(0);
    const over = await runSvc(["admin", "credit", "debit", "--account", account.id, "--micro-usd", "9000000", "--reason", "too much", "--data-dir", dir]);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain("spendable credit does not cover");
    expect((await runSvc(["admin", "credit", "grant", "--account", account.id, "--micro-usd", "10", "--data-dir", dir])).code).toBe(2);
    expect((await runSvc(["admin", "credit", "grant", "--account", account.id, "--micro-usd", "1.5", "--reason", "x", "--data-dir", dir])).code).toBe(2);
    const entries = withCtx(dir, (ctx) => ctx.db.query<{ kind: string; amount_micro_usd: number; memo: string }, [string]>("SELECT kind, amount_micro_usd, memo FROM ledger_entries WHERE account_id = ? ORDER BY seq").all(account.id));
    expect(entries).toEqual([
      { kind: "adjustment", amount_micro_usd: 5_000_000, memo: "trial" },
      { kind: "adjustment", amount_micro_usd: -1_500_000, memo: "correction" },
    ]);
    const metrics = JSON.parse((await runSvc(["admin", "metrics", "--json", "--data-dir", dir])).stdout);
    expect(metrics.adjustments_micro_usd.all_time).toEqual({ granted: 5_000_000, taken: 1_500_000 });
    expect(withCtx(dir, (ctx) => ctx.audit.recent().map((a) => a.action))).toEqual(["credit.debit", "credit.grant"]);
  });
});
