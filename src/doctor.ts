/**
 * `svc doctor`: checks a deployment and says, for anything wrong, how to fix it. Each check is
 * independent, so one failure does not hide the others.
 */
import { accessSync, constants, existsSync, readFileSync, statfsSync } from "node:fs";
import { migrations } from "../migrations/index.ts";
import { type Config, type ConfigFlags, listenParts, paths } from "./config.ts";
import { loadConfig } from "./open.ts";
import { closeDb, integrityCheck, openDb } from "./core/db.ts";
import { currentVersion } from "./core/migrate.ts";
import { Sealer } from "./core/seal.ts";
import { nativeSecp256k1, useSecp256k1 } from "./core/eip191.ts";
import { keccakImplementation, keccakReady } from "./core/keccak.ts";
import { Signer } from "./core/signer.ts";
import { MoneyLease } from "./core/money-lease.ts";
import { probeCheckpointThread } from "./core/checkpointer.ts";
import { cpuIdleSettings, HALT_POLL_FILE } from "./core/cpu-idle.ts";
import { SigningPool } from "./core/signing-pool.ts";
import { BUN_DEFAULT_OUTBOUND, hardOpenFilesLimit, OUTBOUND_ENV, outboundLimit, outboundLimitFor, parseOutbound } from "./core/outbound-requests.ts";
import { findLitestream, LITESTREAM_VERSION, LitestreamControl, litestreamVersion, socketPath } from "./domains/backup/index.ts";
import { livePid } from "./domains/backup/index.ts";
import { parseReplica, redactReplicaUrl } from "./domains/backup/index.ts";
import { sandboxReadiness } from "./domains/sandboxes/index.ts";

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

const ok = (name: string, message: string): Check => ({ name, status: "ok", message });
const warn = (name: string, message: string, fix?: string): Check => ({ name, status: "warn", message, fix });
const fail = (name: string, message: string, fix?: string): Check => ({ name, status: "fail", message, fix });
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

async function commandVersion(bin: string, args: string[]): Promise<string | null> {
  const path = Bun.which(bin);
  if (!path) return null;
  try {
    const proc = Bun.spawn([path, ...args], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    return (out.trim() || err.trim()).split("\n")[0] ?? path;
  } catch {
    return path;
  }
}

async function checkPort(config: Config): Promise<Check> {
  const { hostname, port } = listenParts(config.listen);
  try {
    const probe = Bun.listen({ hostname, port, socket: { data() {} } });
    probe.stop(true);
    return ok("listen", `${config.listen} is free`);
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    if (code !== "EADDRINUSE") return fail("listen", `cannot listen on ${config.listen}: ${err instanceof Error ? err.message : code}`, "choose another address with `svc setup --yes --listen HOST:PORT`");
    const host = hostname === "0.0.0.0" || hostname === "" ? "127.0.0.1" : hostname.includes(":") ? `[${hostname}]` : hostname;
    try {
      const res = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(1500) });
      if (res.ok && (await res.text()).trim() === "ok") return ok("listen", `svc is already serving on ${config.listen}`);
    } catch {
      // not svc, or not answering
    }
    return fail("listen", `${config.listen} is in use by another program`, "stop that program, or choose another address with `svc setup --yes --listen HOST:PORT`");
  }
}

async function replicationChecks(config: Config): Promise<Check[]> {
  const out: Check[] = [];
  let replica;
  try {
    replica = parseReplica(config.backup.replica);
  } catch (err) {
    return [fail("replication", messageOf(err), "svc backup configure --replica URL")];
  }
  const bin = findLitestream(config);
  const version = bin ? await litestreamVersion(bin) : null;
  if (!replica) {
    out.push(warn("replication", "off: the database is not copied anywhere; losing the disk loses everything since the last manual copy", "svc backup configure --replica file:///dir (or s3://…)"));
    out.push(bin ? ok("litestream", `${version ?? bin}`) : warn("litestream", "not installed", "re-run install.sh (it installs litestream)"));
    return out;
  }
  if (!bin) {
    out.push(fail("litestream", `replication to ${redactReplicaUrl(replica.url)} is configured but litestream is not installed: nothing is replicated`, "re-run install.sh (it installs litestream), see docs/backup.md"));
    return out;
  }
  out.push(version?.startsWith("v0.5.") ? ok("litestream", `${version} (${bin})`) : warn("litestream", `${version ?? "unknown version"} at ${bin}; svc is tested with ${LITESTREAM_VERSION}`, "re-run install.sh to install the pinned version"));
  if (replica.dir) {
    try {
      accessSync(replica.dir, constants.W_OK);
      out.push(ok("replica", `${replica.url} is writable`));
    } catch {
      out.push(fail("replica", `${replica.dir} is missing or not writable by this user`, `mkdir -p ${replica.dir} && chown $(stat -c %U ${config.data_dir}) ${replica.dir}`));
    }
  } else out.push(ok("replica", `${redactReplicaUrl(replica.url)} (credentials come from the environment of svc serve)`));
  if (livePid(paths(config).servePid, "serve")) {
    const control = new LitestreamControl(socketPath(config.data_dir));
    try {
      const last = await control.lastSyncAt(paths(config).db);
      const sync = await control.sync(paths(config).db, false, 10);
      const behind = sync.txid - sync.replicated_txid;
      const position = behind > 0 ? `the replica is ${behind} transaction(s) behind (it ships every ${config.backup.sync_interval_secs}s)` : "replica up to date";
      // A replica a little behind is the asynchronous window working; a stalled sync is the problem.
      const stale = !last || Date.now() - Date.parse(last) > 60_000;
      out.push(stale ? warn("replicating", `running, but the last sync was ${last ?? "never"}; ${position}`, "see `svc backup status` and the svc logs") : ok("replicating", `running; ${position}, last sync ${last}`));
    } catch {
      out.push(fail("replicating", "svc serve is running but its litestream does not answer", "see `svc backup status` and the svc logs (journalctl -u svc)"));
    }
  }
  return out;
}

/** Who spends from the database now (docs/money.md): information, never a failure. */
function moneyPathCheck(db: string): Check {
  try {
    const lease = MoneyLease.inspect(`${db}.money-lease`);
    if (lease.mode === "exclusive") return ok("money path", `${lease.holder} keeps its reservations in memory (svc serve, alone)`);
    if (lease.mode === "shared") return ok("money path", "shared: the processes that spend now write their reservations (a CLI command beside the server)");
    return ok("money path", "no process spends now");
  } catch (err) {
    return warn("money path", `cannot read the money lease: ${messageOf(err)}`);
  }
}

/**
 * How many requests svc serve sends out at once (docs/operations.md#outbound-requests-at-once):
 * read from the running server's environment when it runs and this user may read it, else what
 * a serve started from here would get. At Bun's 256, concurrent streamed calls queue.
 */
export function outboundCheck(running: { pid: number; environ: string } | null, env: Record<string, string | undefined>, limits: string | null): Check {
  const name = "outbound requests";
  const judged = (n: number, line: string): Check =>
    n <= BUN_DEFAULT_OUTBOUND
      ? warn(name, `${line}: concurrent streamed calls past that wait for one to end`, `raise the open-files limit (LimitNOFILE= in the unit, ulimit -Hn), or set ${OUTBOUND_ENV} (docs/operations.md)`)
      : ok(name, line);
  if (running) {
    const value = running.environ.split("\0").find((e) => e.startsWith(`${OUTBOUND_ENV}=`))?.slice(OUTBOUND_ENV.length + 1);
    const n = outboundLimit({ [OUTBOUND_ENV]: value });
    return judged(n, `svc serve (pid ${running.pid}) sends up to ${n} requests out at once`);
  }
  const value = env[OUTBOUND_ENV] ?? "";
  if (value !== "") {
    const n = parseOutbound(value);
    if (n === null) {
      return warn(name, `${OUTBOUND_ENV}="${value}" is not a whole number from 1 to 65535: the runtime ignores it and sends up to 256 requests out at once`, `unset it, or set a whole number (docs/operations.md)`);
    }
    return ok(name, `svc serve started from here would send up to ${n} requests out at once (${OUTBOUND_ENV} as set)`);
  }
  const hard = limits === null ? null : hardOpenFilesLimit(limits);
  const n = outboundLimitFor(hard);
  return judged(n, `svc serve started from here would send up to ${n} requests out at once (from the hard open-files limit here, ${hard ?? "unknown"})`);
}

/** The guest halt-polling window svc's docs recommend (docs/operations.md#latency-on-a-virtual-machine). */
export const HALT_POLL_NS = 500_000;

/**
 * How an idle CPU of a virtual machine waits (docs/operations.md#latency-on-a-virtual-machine):
 * with the guest's haltpoll driver polling nothing, every request that finds a vCPU idle waits
 * for the host to wake it — the largest share of a lone call's added time on the bench VM. Only
 * that driver is judged (core/cpu-idle.ts reads the settings).
 */
export function cpuIdleCheck({ driver, pollNs }: ReturnType<typeof cpuIdleSettings>): Check | null {
  if (driver !== "haltpoll" || pollNs === null || Number.isNaN(pollNs)) return null;
  const name = "cpu idle";
  if (pollNs > 0) return ok(name, `an idle vCPU polls up to ${Math.round(pollNs / 1000)} µs before it halts (haltpoll)`);
  return warn(
    name,
    "an idle vCPU halts at once (haltpoll with guest_halt_poll_ns = 0): a request that finds it idle waits for the host to wake it, ~0.3–0.5 ms of a lone call's time through svc on a 2-vCPU VM",
    `echo ${HALT_POLL_NS} > ${HALT_POLL_FILE} as root (haltpoll.guest_halt_poll_ns=${HALT_POLL_NS} on the kernel command line keeps it); docs/operations.md`,
  );
}

/**
 * What signs receipts (receipts.secp256k1): libsecp256k1 when it can, noble otherwise; and what
 * hashes them: hash-wasm's WebAssembly keccak, or noble's JavaScript one where WebAssembly cannot run.
 */
async function signingCheck(setting: string): Promise<Check> {
  try {
    const implementation = useSecp256k1(setting);
    await keccakReady;
    const keccak = keccakImplementation();
    if (keccak !== "hash-wasm") return warn("receipt signing", `${implementation}; keccak by ${keccak} (JavaScript): WebAssembly could not run, ~20 µs more a receipt`, "run svc where WebAssembly is allowed (a seccomp or W^X policy can forbid it)");
    if (nativeSecp256k1() || setting === "js") return ok("receipt signing", `${implementation}; keccak by ${keccak}`);
    return warn("receipt signing", `${implementation}: about 5× the CPU per signature of libsecp256k1, a quarter of a metered call's`, "apt-get install libsecp256k1-1 (libsecp256k1-2 on newer releases)");
  } catch (err) {
    return fail("receipt signing", messageOf(err), 'set receipts.secp256k1 to "auto" or to the path of an installed libsecp256k1.so');
  }
}

/**
 * The worker threads `svc serve` starts, each started here and stopped: without them it still
 * serves, slower (receipts signed on the event loop, WAL checkpoints on the serving connection),
 * and only its log would say so.
 */
async function threadsCheck(signWorkers: number): Promise<Check> {
  const problems: string[] = [];
  if (signWorkers > 0) {
    // "auto": whether the thread loads; the receipt signing check judges the setting.
    let pool: SigningPool | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 5 s")), 5_000)));
    try {
      pool = new SigningPool(1, "auto");
      await Promise.race([pool.ready(), timeout]);
    } catch (err) {
      problems.push(`the receipt signing thread did not start: ${messageOf(err)}`);
    } finally {
      clearTimeout(timer);
      pool?.close();
    }
  }
  try {
    await probeCheckpointThread();
  } catch (err) {
    problems.push(`the WAL checkpoint thread did not start: ${messageOf(err)}`);
  }
  if (problems.length) return fail("threads", problems.join("; "), "this build of svc is incomplete: reinstall it (./install.sh) or rebuild it (bun run build)");
  return ok("threads", signWorkers > 0 ? `${signWorkers} receipt signing thread${signWorkers === 1 ? "" : "s"} and the WAL checkpoint thread start` : "the WAL checkpoint thread starts; receipts are signed on the event loop (receipts.sign_workers = 0)");
}

export async function runDoctor(flags: ConfigFlags, env: Record<string, string | undefined> = process.env): Promise<Check[]> {
  const checks: Check[] = [];
  let config: Config;
  try {
    config = loadConfig(flags, env);
    checks.push(ok("config", `${existsSync(config.config_path) ? config.config_path : "defaults (no svc.toml)"} is valid`));
  } catch (err) {
    checks.push(fail("config", messageOf(err), "fix the key named above in svc.toml (docs/configuration.md)"));
    return checks;
  }
  const p = paths(config);

  if (!existsSync(config.data_dir)) {
    checks.push(fail("data dir", `${config.data_dir} does not exist`, "run `svc setup`"));
    return checks;
  }
  try {
    accessSync(config.data_dir, constants.W_OK);
    checks.push(ok("data dir", `${config.data_dir} is writable`));
  } catch {
    checks.push(fail("data dir", `${config.data_dir} is not writable by this user`, "run svc as the data dir's owner (the svc user under systemd)"));
  }

  let sealer: Sealer | null = null;
  if (!existsSync(p.masterKey)) checks.push(fail("master key", `${p.masterKey} is missing`, "run `svc setup` (restore it from backup if data was sealed with it)"));
  else {
    try {
      sealer = Sealer.fromKeyFile(p.masterKey);
      if (Sealer.keyFileTooOpen(p.masterKey)) checks.push(warn("master key", `${p.masterKey} is readable by other users`, `chmod 600 ${p.masterKey}`));
      else checks.push(ok("master key", `${p.masterKey} (mode 0600, key id ${sealer.keyId})`));
    } catch (err) {
      checks.push(fail("master key", messageOf(err)));
    }
  }
  if (sealer) {
    try {
      checks.push(ok("signer key", `receipt signer ${Signer.fromKeyFile(p.signerKey, sealer).address}`));
    } catch (err) {
      checks.push(fail("signer key", messageOf(err), "run `svc setup`; if the key file exists, it was sealed with another master key"));
    }
  }

  if (!existsSync(p.db)) checks.push(fail("database", `${p.db} is missing`, "run `svc setup` (or restore it from a backup)"));
  else {
    try {
      const db = openDb(p.db, { readonly: true });
      try {
        const problems = integrityCheck(db);
        const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
        const version = currentVersion(db);
        if (problems.length) checks.push(fail("database", `integrity check failed: ${problems.slice(0, 3).join("; ")}`, "restore the database from a backup"));
        else checks.push(ok("database", `${p.db} passes integrity_check`));
        if (mode !== "wal") checks.push(fail("journal mode", `journal_mode is ${mode}, not wal`, "start `svc serve` once; it sets WAL mode"));
        if (version < migrations.length) checks.push(warn("migrations", `${migrations.length - version} migration(s) pending`, "run `svc migrate` (serve applies them on start)"));
        else if (version > migrations.length) checks.push(fail("migrations", `database is at migration ${version}, newer than this build (${migrations.length})`, "install the newer svc build"));
        else checks.push(ok("migrations", `up to date (${version})`));
      } finally {
        closeDb(db);
      }
    } catch (err) {
      checks.push(fail("database", `cannot open ${p.db}: ${messageOf(err)}`));
    }
  }

  try {
    const fs = statfsSync(config.data_dir);
    const free = fs.bavail * fs.bsize;
    const mib = Math.round(free / 1048576);
    if (free < 256 * 1048576) checks.push(fail("disk", `${mib} MiB free on the data disk`, "free space or move the data dir"));
    else if (free < 1024 * 1048576) checks.push(warn("disk", `${mib} MiB free on the data disk`, "free space before it runs out"));
    else checks.push(ok("disk", `${mib} MiB free on the data disk`));
  } catch {
    checks.push(warn("disk", "cannot read free space of the data dir"));
  }

  checks.push(await checkPort(config));
  if (existsSync(p.db)) checks.push(moneyPathCheck(p.db));
  checks.push(outboundCheck(runningServe(p.servePid, config.data_dir), env, readOrNull("/proc/self/limits")));

  checks.push(await signingCheck(config.receipts.secp256k1));
  checks.push(await threadsCheck(config.receipts.sign_workers));
  const idle = cpuIdleCheck(cpuIdleSettings());
  if (idle) checks.push(idle);

  const bwrap = await commandVersion("bwrap", ["--version"]);
  checks.push(bwrap ? ok("bubblewrap", bwrap) : warn("bubblewrap", "bwrap is not installed: code sandboxes cannot run", "apt-get install bubblewrap"));
  if (bwrap) checks.push(await sandboxCheck(config));
  checks.push(...(await replicationChecks(config)));

  checks.push(config.admin.token_sha256 ? ok("admin API", "enabled") : warn("admin API", "disabled (no admin token): /v1/admin answers 404", "svc setup --yes --generate-admin-token"));
  checks.push(config.metrics.token_sha256 ? ok("metrics", "enabled at /metrics") : warn("metrics", "disabled (no metrics token): /metrics answers 404", "svc setup --yes --generate-metrics-token"));
  const url = new URL(config.public_url);
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol === "http:" && !loopback) checks.push(warn("public URL", `${config.public_url} is plain http on a non-loopback host`, "put svc behind TLS and set --public-url https://…"));
  else checks.push(ok("public URL", config.public_url));
  return checks;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The running svc serve of this data dir, with its environment when this user may read it. */
function runningServe(pidFile: string, dataDir: string): { pid: number; environ: string } | null {
  const pid = livePid(pidFile, dataDir);
  const environ = pid === null ? null : readOrNull(`/proc/${pid}/environ`);
  return pid === null || environ === null ? null : { pid, environ };
}

/** Whether this host can run sandboxes, from a throwaway runner's posture (its self-test sandbox included). */
async function sandboxCheck(config: Config): Promise<Check> {
  if (!config.sandboxes.local) return ok("sandboxes", "sandboxes.local = false: every run goes to fleet nodes (svc nodes list)");
  try {
    const p = await sandboxReadiness();
    if (!p.available) return warn("sandboxes", `cannot run here: ${p.reason ?? "unknown reason"}`, "see docs/sandboxes-isolation.md");
    const languages = p.languages.filter((l) => l.available).map((l) => `${l.name} ${l.version ?? ""}`.trim());
    const limits = p.cgroups.memory && p.cgroups.pids ? `cgroups ${p.cgroups.version} (memory, pids per run)` : `${p.cgroups.note}`;
    return ok("sandboxes", `ready: ${languages.join(", ") || "no language"}; ${limits}; uid ${p.isolation.sandbox_uid} (${p.isolation.uid_mode})`);
  } catch (err) {
    return warn("sandboxes", `the runner did not start: ${messageOf(err)}`, "see docs/sandboxes-isolation.md");
  }
}
