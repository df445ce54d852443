/**
 * Replication with the real litestream program: losing the database and getting it back,
 * point-in-time restore, verification, refusals, supervision, posture. Needs `litestream`
 * (v0.5.x) on PATH; test/run.sh installs it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { isAlive } from "../../../src/domains/backup/process.ts";
import { runSvc, serveSvc, svcBinary, type Served } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";

const TOKEN = "replication-test-admin-token";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

beforeAll(async () => {
  if (!Bun.which("litestream")) throw new Error("litestream is not installed: run test/run.sh (it installs the pinned version)");
  await svcBinary();
}, 120_000);

async function setUp(extra: string[] = []) {
  const root = tempDir("svc-repl");
  const dir = join(root, "data");
  const replica = join(root, "replica");
  const r = await runSvc(["setup", "--yes", "--data-dir", dir, "--admin-token", TOKEN, "--replica", `file://${replica}`, ...extra]);
  expect(r.code).toBe(0);
  return { root, dir, replica, db: join(dir, "svc.db") };
}

const sha = (i: number, salt = "") => createHash("sha256").update(`${salt}row-${i}`).digest("hex");

/** Commits n rows through the running server (the denylist: one row per POST). */
async function writeRows(served: Served, n: number, salt = ""): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${served.url}/v1/admin/denylist`, { method: "POST", headers: auth, body: JSON.stringify({ sha256: sha(i, salt), reason: salt || "test" }) });
    expect(res.status).toBe(201);
  }
}

const litestreamPid = (dir: string): number | null => {
  const path = join(dir, "litestream.pid");
  return existsSync(path) ? Number(readFileSync(path, "utf8").trim()) : null;
};

const countRows = (path: string, table = "denylist") => {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
  } finally {
    db.close();
  }
};

async function waitFor(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("losing the database", () => {
  test("kill -9, delete the database and its WAL: the next start restores every synced row and serves", async () => {
    const { dir, db } = await setUp();
    let served = await serveSvc(dir);
    const port = Number(new URL(served.url).port);
    await writeRows(served, 150);
    const synced = await runSvc(["backup", "now", "--data-dir", dir]);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toContain("everything committed so far");
    const orphan = litestreamPid(dir)!;
    expect(isAlive(orphan)).toBe(true);

    served.proc.kill("SIGKILL");
    await served.proc.exited;
    for (const f of ["svc.db", "svc.db-wal", "svc.db-shm"]) rmSync(join(dir, f), { force: true });
    expect(existsSync(db)).toBe(false);

    served = await serveSvc(dir, { port });
    try {
      expect(isAlive(orphan)).toBe(false); // the orphaned replicator was stopped before the restore
      expect(served.log()).toContain("restored it from the replica");
      const rows = (await (await fetch(`${served.url}/v1/admin/denylist`, { headers: auth })).json()) as unknown[];
      expect(rows.length).toBe(150);
      const status = (await (await fetch(`${served.url}/v1/status`)).json()) as any;
      expect(status.replication).toMatchObject({ enabled: true, state: "replicating", replica_kind: "file" });
      // And it keeps replicating what comes next.
      await writeRows(served, 5, "after");
      expect((await runSvc(["backup", "now", "--data-dir", dir])).code).toBe(0);
    } finally {
      const child = litestreamPid(dir);
      const code = await served.stop();
      if (code !== 0) console.log("SERVE LOG", served.log());
      expect(code).toBe(0);
      if (child) expect(isAlive(child)).toBe(false); // stopped with svc
    }
    expect(existsSync(join(dir, "litestream.pid"))).toBe(false);
    const check = await runSvc(["backup", "verify", "--data-dir", dir]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("backup verified");
  }, 90_000);
});

describe("svc restore", () => {
  test("--timestamp brings back an earlier state; without it, the latest", async () => {
    const { root, dir } = await setUp();
    const served = await serveSvc(dir);
    let between = "";
    try {
      await writeRows(served, 10, "a");
      expect((await runSvc(["backup", "now", "--data-dir", dir])).code).toBe(0);
      between = new Date().toISOString();
      await Bun.sleep(1_200); // Litestream stamps its files to the second
      await writeRows(served, 7, "b");
      expect((await runSvc(["backup", "now", "--data-dir", dir])).code).toBe(0);
    } finally {
      await served.stop();
    }
    const earlier = join(root, "earlier.db");
    const r = await runSvc(["restore", "--data-dir", dir, "--to", earlier, "--timestamp", between]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`as of ${between}`);
    expect(countRows(earlier)).toBe(10);
    const latest = join(root, "latest.db");
    expect((await runSvc(["restore", "--data-dir", dir, "--to", latest])).code).toBe(0);
    expect(countRows(latest)).toBe(17);
    const bad = await runSvc(["restore", "--data-dir", dir, "--to", join(root, "x.db"), "--timestamp", "yesterday-ish"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("RFC 3339");
  }, 90_000);

  test("refuses to overwrite the live database without --force, changing nothing; --force keeps the old file", async () => {
    const { dir, db } = await setUp();
    const served = await serveSvc(dir);
    await writeRows(served, 3);
    expect((await runSvc(["backup", "now", "--data-dir", dir])).code).toBe(0);
    // While svc serves the database, restoring over it is refused even with --force.
    const live = await runSvc(["restore", "--data-dir", dir, "--force"]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain("stop it before restoring");
    await served.stop();

    const before = createHash("sha256").update(readFileSync(db)).digest("hex");
    const listing = readdirSync(dir).sort();
    const refused = await runSvc(["restore", "--data-dir", dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--force");
    expect(createHash("sha256").update(readFileSync(db)).digest("hex")).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(listing);

    const forced = await runSvc(["restore", "--data-dir", dir, "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("previous file is kept at");
    expect(countRows(db)).toBe(3);
    expect(readdirSync(dir).some((f) => f.startsWith("svc.db.before-restore-"))).toBe(true);
  }, 90_000);
});

describe("svc backup verify", () => {
  test("passes on a good replica and fails loudly on a corrupted copy", async () => {
    const { root, dir, replica } = await setUp();
    const served = await serveSvc(dir);
    try {
      await writeRows(served, 25);
      const good = await runSvc(["backup", "verify", "--data-dir", dir]);
      expect(good.code).toBe(0);
      expect(good.stdout).toContain("backup verified");
      expect(good.stdout).toMatch(/ok {4}denylist +live +25 +replica +25/);
    } finally {
      await served.stop();
    }
    const copy = join(root, "corrupted");
    cpSync(replica, copy, { recursive: true });
    let flipped = 0;
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ltx") && statSync(p).size > 200) {
          const bytes = readFileSync(p);
          for (let i = 120; i < bytes.length - 40; i += 97) bytes[i] = bytes[i]! ^ 0xff;
          writeFileSync(p, bytes);
          flipped++;
        }
      }
    };
    walk(copy);
    expect(flipped).toBeGreaterThan(0);
    const bad = await runSvc(["backup", "verify", "--data-dir", dir, "--replica", `file://${copy}`]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("BACKUP VERIFICATION FAILED");
    const stillGood = await runSvc(["backup", "verify", "--data-dir", dir, "--replica", `file://${replica}`]);
    expect(stillGood.code).toBe(0);
  }, 90_000);
});

describe("supervision and posture", () => {
  test("a litestream that dies is restarted; status, metrics and doctor report replication", async () => {
    const { dir } = await setUp(["--metrics-token", "m-token"]);
    const served = await serveSvc(dir);
    try {
      const first = litestreamPid(dir)!;
      process.kill(first, "SIGKILL");
      await waitFor(() => {
        const next = litestreamPid(dir);
        return next !== null && next !== first && isAlive(next);
      }, "a new litestream");
      // Replicating again, and the new litestream has synced once (on a loaded machine its first sync can trail its start).
      await waitFor(async () => {
        const { replication } = (await (await fetch(`${served.url}/v1/status`)).json()) as any;
        return replication.state === "replicating" && replication.last_sync_at !== null;
      }, "replicating again");
      const status = (await (await fetch(`${served.url}/v1/status`)).json()) as any;
      expect(status.replication.restarts).toBe(1);
      expect(typeof status.replication.lag_seconds).toBe("number");
      expect(status.replication.last_sync_at).not.toBeNull();
      expect(JSON.stringify(status)).not.toContain(dir); // the public posture never names the replica's location
      const metrics = await (await fetch(`${served.url}/metrics`, { headers: { authorization: "Bearer m-token" } })).text();
      expect(metrics).toContain("svc_replication_up 1");
      expect(metrics).toContain("svc_replication_restarts 1");
      const doctor = await runSvc(["doctor", "--data-dir", dir]);
      expect(doctor.stdout).toMatch(/ok {4}replicating: running; /);
      const st = await runSvc(["backup", "status", "--data-dir", dir]);
      expect(st.code).toBe(0);
      expect(st.stdout).toContain("replicating: yes");
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 90_000);

  test("without litestream installed svc still serves and says replication is not running", async () => {
    const { dir } = await setUp();
    const served = await serveSvc(dir, { env: { SVC_LITESTREAM: "/nonexistent/litestream" } });
    try {
      const status = (await (await fetch(`${served.url}/v1/status`)).json()) as any;
      expect(status.replication).toMatchObject({ enabled: true, state: "not_installed" });
      expect(status.status).toBe("degraded");
      expect(status.last_sample.problems).toContain("replication is not installed");
      expect(served.log()).toContain("NOT being replicated");
    } finally {
      await served.stop();
    }
    const doctor = await runSvc(["doctor", "--data-dir", dir], { env: { SVC_LITESTREAM: "/nonexistent/litestream" } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain("litestream is not installed");
  }, 60_000);
});

describe("configuring replication", () => {
  test("setup defaults to a replica beside the data dir; configure changes it and rewrites litestream.yml", async () => {
    const root = tempDir("svc-repl");
    const dir = join(root, "data");
    expect((await runSvc(["setup", "--yes", "--data-dir", dir])).code).toBe(0);
    expect(readFileSync(join(dir, "svc.toml"), "utf8")).toContain(`replica = "file://${dir}-replica"`);
    expect(statSync(`${dir}-replica`).mode & 0o777).toBe(0o700);
    const other = join(root, "elsewhere");
    const r = await runSvc(["backup", "configure", "--data-dir", dir, "--replica", `file://${other}`, "--sync-interval", "2"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("applies the next time svc serve starts");
    const yml = Bun.YAML.parse(readFileSync(join(dir, "litestream.yml"), "utf8")) as any;
    expect(yml.dbs[0].replica).toEqual({ url: `file://${other}`, "sync-interval": "2s" });
    expect(existsSync(other)).toBe(true);
    expect((await runSvc(["backup", "configure", "--data-dir", dir, "--replica", "ftp://x/y"])).code).toBe(2);
    expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "nope"])).code).toBe(2);
    const off = await runSvc(["backup", "configure", "--data-dir", dir, "--replica", "off"]);
    expect(off.stdout).toContain("replication is off");
    expect((await runSvc(["backup", "now", "--data-dir", dir])).stderr).toContain("replication is off");
    // Re-running setup keeps the operator's choice.
    expect((await runSvc(["setup", "--yes", "--data-dir", dir])).stdout).toContain("kept     config");
  }, 60_000);

  test("setup on a new machine pointed at an old replica restores the database", async () => {
    const { root, dir, replica } = await setUp();
    const served = await serveSvc(dir);
    await writeRows(served, 12);
    expect((await runSvc(["backup", "now", "--data-dir", dir])).code).toBe(0);
    await served.stop();
    // The new machine: the operator copied master.key and signer.key, and points setup at the replica.
    const fresh = join(root, "new-machine");
    cpSync(join(dir, "master.key"), join(fresh, "master.key"));
    cpSync(join(dir, "signer.key"), join(fresh, "signer.key"));
    const r = await runSvc(["setup", "--yes", "--data-dir", fresh, "--replica", `file://${replica}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("restored from file://");
    expect(countRows(join(fresh, "svc.db"))).toBe(12);
  }, 60_000);
});
