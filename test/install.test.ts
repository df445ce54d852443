/**
 * install.sh, for real: build, install, re-run, uninstall, purge. Everything goes into a
 * temp dir (SVC_BIN_DIR, SVC_CONFIG_DIR, SVC_DATA_DIR, SVC_UNIT_DIR) and svc runs as the
 * current user, so the real /usr/local/bin, /etc and /var/lib are never touched and no user
 * is created or removed. The script runs from a snapshot of this checkout (node_modules
 * linked), so its build neither writes the real dist/ nor races edits to src/.
 *
 * Needs root: install.sh refuses to run otherwise (and installs bubblewrap with apt-get
 * when bwrap is missing). On a host where systemd runs, each run gets a private mount
 * namespace with /run/systemd hidden, so the script takes its no-systemd path and never
 * calls systemctl on the real service manager.
 *
 * litestream: for speed, a tiny fake `litestream` (it prints v0.5.18 for `version` and
 * restores nothing) comes first on PATH, so install.sh finds the pinned version "present"
 * and never downloads or builds one; SVC_LITESTREAM_BIN_DIR points into the temp dir all
 * the same. The real install path (release download, else `go install`) is exercised by
 * test/run.sh, which CI runs and which installs the real binary the backup tests use.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";

const REPO = resolve(import.meta.dir, "..");
const IS_ROOT = process.getuid?.() === 0;
const SKIP_REASON = "install.sh must run as root (run `bun test test/install.test.ts` as root to include it)";
if (!IS_ROOT) console.warn(`test/install.test.ts skipped: ${SKIP_REASON}`);

const TIMEOUT = 120_000;
const ADMIN_TOKEN = "svcadm_install_test_token_0123456789";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let tmp = "";
let src = "";
let dirs: { bin: string; config: string; data: string; unit: string; replica: string; fakeBin: string };
let user = "";
let listen = "";

function freePort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

/** Copies the checkout (without node_modules, .git, dist, data) and links node_modules. */
function snapshotCheckout(dest: string): void {
  const skip = new Set(["node_modules", ".git", "dist", "data"]);
  cpSync(REPO, dest, {
    recursive: true,
    filter: (path) => {
      const rel = relative(REPO, path);
      return rel === "" || (!skip.has(rel.split(sep)[0]!) && !rel.startsWith(join("bench", "out")));
    },
  });
  if (existsSync(join(REPO, "node_modules"))) symlinkSync(join(REPO, "node_modules"), join(dest, "node_modules"));
}

/** Stands in for litestream v0.5.18: `version`, and a restore that finds no replica. */
const FAKE_LITESTREAM = `#!/bin/sh
# Fake litestream for test/install.test.ts (see its file comment).
case "$1" in
  version) echo v0.5.18 ;;
  restore) exit 0 ;; # like -if-replica-exists with an empty replica: nothing restored
  *) echo "fake litestream: $1 is not supported" >&2; exit 1 ;;
esac
`;

function runInstall(args: string[] = [], env: Record<string, string> = {}): Run {
  const script = join(src, "install.sh");
  // With systemd running, hide it in a private mount namespace (see the file comment).
  const cmd = existsSync("/run/systemd/system")
    ? ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount -t tmpfs tmpfs /run/systemd && exec "$@"', "sh", "bash", script, ...args]
    : ["bash", script, ...args];
  const proc = Bun.spawnSync(cmd, {
    cwd: tmp,
    env: {
      ...process.env,
      SVC_BIN_DIR: dirs.bin,
      SVC_CONFIG_DIR: dirs.config,
      SVC_DATA_DIR: dirs.data,
      SVC_UNIT_DIR: dirs.unit,
      SVC_USER: user,
      SVC_LISTEN: listen,
      SVC_PUBLIC_URL: "",
      SVC_ADMIN_TOKEN: "",
      SVC_METRICS_TOKEN: "",
      SVC_REPLICA: "", // the default: file://<data dir>-replica
      SVC_LITESTREAM_BIN_DIR: dirs.bin,
      PATH: `${dirs.fakeBin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** Fails with the script's own output, which says which step went wrong. */
function expectOk(run: Run): void {
  if (run.code !== 0) throw new Error(`install.sh exited ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
}

const mode = (path: string): number => statSync(path).mode & 0o777;
const bytes = (path: string): Buffer => readFileSync(path);
/** Unit lines that are directives, not comments. */
const directives = (unit: string): string[] => unit.split("\n").filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
/** The body of one [section] of a TOML file (up to the next table header). */
const tomlSection = (toml: string, name: string): string => toml.split(new RegExp(`^\\[${name}\\]\\s*$`, "m"))[1]?.split(/^\[/m)[0] ?? "";

/** Fails with systemd-analyze's own complaints about the unit. */
function expectUnitVerifies(unitPath: string): void {
  const proc = Bun.spawnSync(["systemd-analyze", "verify", unitPath], { stdout: "pipe", stderr: "pipe" });
  const output = proc.stdout.toString() + proc.stderr.toString();
  if (proc.exitCode !== 0) throw new Error(`systemd-analyze verify exited ${proc.exitCode}:\n${output}`);
  expect(output).not.toContain("svc.service:");
}

describe.skipIf(!IS_ROOT)("install.sh", () => {
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), "svc-install-"));
    src = join(tmp, "src");
    mkdirSync(src);
    snapshotCheckout(src);
    dirs = {
      bin: join(tmp, "bin"),
      config: join(tmp, "etc", "svc"),
      data: join(tmp, "lib", "svc"),
      unit: join(tmp, "systemd"),
      replica: join(tmp, "lib", "svc-replica"),
      fakeBin: join(tmp, "fake-bin"),
    };
    mkdirSync(dirs.fakeBin);
    writeFileSync(join(dirs.fakeBin, "litestream"), FAKE_LITESTREAM);
    chmodSync(join(dirs.fakeBin, "litestream"), 0o755);
    user = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
    listen = `127.0.0.1:${freePort()}`;
  });

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  test("--help lists every setting", () => {
    const run = runInstall(["--help"]);
    expectOk(run);
    for (const name of ["SVC_BIN_DIR", "SVC_CONFIG_DIR", "SVC_DATA_DIR", "SVC_REPLICA", "SVC_LITESTREAM_BIN_DIR", "SVC_USER", "SVC_UNIT_DIR", "SVC_LISTEN", "SVC_PUBLIC_URL", "SVC_ADMIN_TOKEN", "SVC_METRICS_TOKEN"]) {
      expect(run.stdout).toContain(name);
    }
    expect(run.stdout).toContain(`(now: file://${dirs.replica})`);
    expect(existsSync(dirs.bin)).toBe(false);
  });

  test("--help never shows the credentials or query of a remote replica URL", () => {
    const run = runInstall(["--help"], { SVC_REPLICA: "sftp://backup:hunter2@replicas.example.com/svc?key=secret" });
    expect(run.stdout).toContain("(now: sftp://replicas.example.com/svc?…)");
    expect(run.stdout).not.toContain("hunter2");
    expect(run.stdout).not.toContain("secret");
  });

  test("rejects a replica that is not off, file:///absolute/dir or a URL, before touching anything", () => {
    for (const [replica, message] of [
      ["file://relative/dir", "SVC_REPLICA must be file:///absolute/dir"],
      ["file:///", "SVC_REPLICA must be file:///absolute/dir"],
      ["file:///var/lib/svc replica", "must not contain spaces"],
      ["file:///tmp/x%20y", "must not contain spaces or any of"],
      ["bucket/path", "SVC_REPLICA must be off, file:///absolute/dir or a URL"],
    ]) {
      const run = runInstall([], { SVC_REPLICA: replica! });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(message!);
    }
    const same = runInstall([], { SVC_REPLICA: `file://${dirs.data}/` });
    expect(same.code).toBe(1);
    expect(same.stderr).toContain("must be a directory of its own");
    expect(existsSync(dirs.bin)).toBe(false);
    expect(existsSync(dirs.data)).toBe(false);
  });

  test("refuses to run without root", () => {
    // nobody cannot read the temp dir, so the script comes in on stdin.
    const proc = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-s"], {
      cwd: "/",
      stdin: Bun.file(join(src, "install.sh")),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(proc.exitCode).toBe(1);
    expect(proc.stderr.toString()).toContain("must run as root");
  });

  test("rejects an unknown option", () => {
    const run = runInstall(["--frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option: --frobnicate");
  });

  test(
    "first run builds and installs the binary, config, data dir and unit",
    () => {
      const run = runInstall([], { SVC_ADMIN_TOKEN: ADMIN_TOKEN });
      expectOk(run);

      const bin = join(dirs.bin, "svc");
      expect(mode(bin) & 0o111).toBe(0o111);
      const version = Bun.spawnSync([bin, "version"]);
      expect(version.exitCode).toBe(0);
      expect(version.stdout.toString()).toMatch(/^svc \d+\.\d+\.\d+/);
      expect(run.stdout).toMatch(new RegExp(`^binary: installed ${bin}`, "m"));
      expect(run.stdout).toMatch(/^litestream: present \(v0\.5\.18\)$/m);
      expect(existsSync(join(dirs.bin, "litestream"))).toBe(false);

      const unitPath = join(dirs.unit, "svc.service");
      const unit = readFileSync(unitPath, "utf8");
      expect(unit).not.toMatch(/@[A-Z_]+@/);
      const lines = directives(unit);
      expect(lines).toContain(`ExecStart=${bin} serve --config ${dirs.config}/svc.toml`);
      expect(lines).toContain(`User=${user}`);
      // The data dir, and the file replica ("-": a missing one does not fail the start).
      expect(lines.filter((l) => l.startsWith("ReadWritePaths="))).toEqual([`ReadWritePaths=${dirs.data} -${dirs.replica}`]);
      expect(lines).toContain("Type=exec");
      expect(lines).toContain("ProtectSystem=strict");
      expect(lines.filter((l) => /^(RestrictNamespaces|MemoryDenyWriteExecute)=/.test(l))).toEqual([]);

      const toml = readFileSync(join(dirs.config, "svc.toml"), "utf8");
      expect(toml).toContain(`listen = "${listen}"`);
      expect(toml).toContain(`data_dir = "${dirs.data}"`);
      // The admin token is stored as its sha256 and never printed.
      expect(toml).toContain(createHash("sha256").update(ADMIN_TOKEN).digest("hex"));
      expect(toml).not.toContain(ADMIN_TOKEN);
      expect(run.stdout + run.stderr).not.toContain(ADMIN_TOKEN);

      // The replica, passed to `svc setup --replica`, is stored as backup.replica.
      expect(tomlSection(toml, "backup")).toContain(`replica = "file://${dirs.replica}"`);

      expect(mode(dirs.config)).toBe(0o750);
      expect(mode(dirs.data)).toBe(0o700);
      // The replica dir: created before setup, private to the service user.
      expect(run.stdout).toMatch(new RegExp(`^replica dir: created ${dirs.replica}$`, "m"));
      expect(mode(dirs.replica)).toBe(0o700);
      expect(statSync(dirs.replica).uid).toBe(process.getuid!());
      expect(statSync(dirs.replica).gid).toBe(process.getgid!());
      expect(mode(join(dirs.data, "master.key"))).toBe(0o600);
      expect(existsSync(join(dirs.data, "signer.key"))).toBe(true);
      expect(existsSync(join(dirs.data, "svc.db"))).toBe(true);

      // No systemd here (or hidden): the one command that starts it in the foreground.
      expect(run.stdout).toContain(`${bin} serve --config ${dirs.config}/svc.toml`);
    },
    TIMEOUT,
  );

  test.skipIf(!Bun.which("systemd-analyze"))(
    "the rendered unit passes systemd-analyze verify",
    () => {
      expectUnitVerifies(join(dirs.unit, "svc.service"));
    },
    TIMEOUT,
  );

  test(
    "a second run changes nothing and says so",
    () => {
      const keys = ["master.key", "signer.key"].map((f) => join(dirs.data, f));
      const before = keys.map(bytes);
      const tomlBefore = bytes(join(dirs.config, "svc.toml"));
      const unitBefore = bytes(join(dirs.unit, "svc.service"));

      const run = runInstall([], { SVC_ADMIN_TOKEN: ADMIN_TOKEN });
      expectOk(run);
      for (const step of ["binary", "user", "config dir", "data dir", "replica dir", "setup", "unit"]) {
        expect(run.stdout).toMatch(new RegExp(`^${step}: no change`, "m"));
      }
      expect(run.stdout).toMatch(/^litestream: present \(v0\.5\.18\)$/m);
      expect(run.stdout).not.toMatch(/^(binary|unit): installed/m);
      expect(run.stdout).not.toMatch(/^setup: (created|changed)/m);
      expect(keys.map(bytes)).toEqual(before);
      expect(bytes(join(dirs.config, "svc.toml"))).toEqual(tomlBefore);
      expect(bytes(join(dirs.unit, "svc.service"))).toEqual(unitBefore);
    },
    TIMEOUT,
  );

  test(
    "--uninstall removes the binary and unit but keeps config and data",
    () => {
      const run = runInstall(["--uninstall"]);
      expectOk(run);
      expect(existsSync(join(dirs.bin, "svc"))).toBe(false);
      expect(existsSync(join(dirs.unit, "svc.service"))).toBe(false);
      expect(existsSync(join(dirs.config, "svc.toml"))).toBe(true);
      expect(existsSync(join(dirs.data, "master.key"))).toBe(true);
      expect(existsSync(join(dirs.data, "svc.db"))).toBe(true);
      expect(existsSync(dirs.replica)).toBe(true);
      expect(run.stdout).toMatch(/^kept: config in .* and data in /m);
      expect(run.stdout).toContain(`kept: replicas in ${dirs.replica}`);
    },
    TIMEOUT,
  );

  test(
    "--purge removes config, data and the replica dir but not a user it did not create",
    () => {
      const run = runInstall(["--purge"]);
      expectOk(run);
      expect(existsSync(dirs.config)).toBe(false);
      expect(existsSync(dirs.data)).toBe(false);
      expect(existsSync(dirs.replica)).toBe(false);
      expect(run.stdout).toContain(`purge: removed ${dirs.replica}`);
      expect(run.stdout).toContain(`purge: kept user ${user}`);
      expect(Bun.spawnSync(["id", "-u", user]).exitCode).toBe(0);
    },
    TIMEOUT,
  );

  test(
    "SVC_REPLICA=off: no replica dir, and the unit makes only the data dir writable",
    () => {
      const run = runInstall([], { SVC_REPLICA: "off" });
      expectOk(run);
      expect(run.stdout).toMatch(/^replica dir: none \(SVC_REPLICA=off/m);
      expect(existsSync(dirs.replica)).toBe(false);

      const unitPath = join(dirs.unit, "svc.service");
      const unit = readFileSync(unitPath, "utf8");
      expect(unit).not.toMatch(/@[A-Z_]+@/);
      expect(directives(unit).filter((l) => l.startsWith("ReadWritePaths="))).toEqual([`ReadWritePaths=${dirs.data}`]);
      if (Bun.which("systemd-analyze")) expectUnitVerifies(unitPath);

      const toml = readFileSync(join(dirs.config, "svc.toml"), "utf8");
      expect(tomlSection(toml, "backup")).toContain(`replica = "off"`);

      const purge = runInstall(["--purge"], { SVC_REPLICA: "off" });
      expectOk(purge);
      expect(existsSync(dirs.data)).toBe(false);
      expect(purge.stdout).not.toContain("replica");
    },
    TIMEOUT,
  );
});
