/**
 * The one object handed to every route, service and command: configuration, database, clock,
 * keys, scheduler, outbox. No module-level singletons, so tests open as many isolated
 * contexts (each on its own data dir) as they like.
 *
 * This file builds the core services only and imports no area. An area that keeps state per
 * context (the inference catalogue, the replication posture) adds its field to Context by
 * declaration merging in its own files and sets it in its module's wire(); src/open.ts opens a
 * context and wires every area, and is what commands and tests call.
 */
import { migrations } from "../migrations/index.ts";
import { type Config, paths } from "./config.ts";
import { AuditLog } from "./core/audit.ts";
import { Bus } from "./core/bus.ts";
import { type Clock, systemClock } from "./core/clock.ts";
import { Cursors } from "./core/cursor.ts";
import { closeDb, type Db, openDb, type SqliteExtension } from "./core/db.ts";
import { Ledger } from "./core/ledger.ts";
import { createLogger, type Logger } from "./core/log.ts";
import { Meter, type UsageEvent } from "./core/meter.ts";
import { MoneyLease } from "./core/money-lease.ts";
import { applyMigrations } from "./core/migrate.ts";
import { Outbox, type OutboxEvent } from "./core/outbox.ts";
import { RateLimiter } from "./core/ratelimit.ts";
import { ReadCache } from "./core/read-cache.ts";
import { Scheduler } from "./core/scheduler.ts";
import { Sealer } from "./core/seal.ts";
import { Signer } from "./core/signer.ts";
import { Telemetry } from "./core/telemetry.ts";
import { Transactions } from "./core/transaction.ts";
import { VERSION } from "./version.ts";

export interface Context {
  config: Config;
  paths: ReturnType<typeof paths>;
  version: string;
  clock: Clock;
  log: Logger;
  db: Db;
  tx: Transactions;
  /** Rarely changed rows the hot path reads, kept between their changes (core/read-cache.ts). */
  reads: ReadCache;
  events: Bus<OutboxEvent>;
  outbox: Outbox;
  ledger: Ledger;
  meter: Meter;
  audit: AuditLog;
  scheduler: Scheduler;
  sealer: Sealer;
  signer: Signer;
  cursors: Cursors;
  telemetry: Telemetry;
  publicLimiter: RateLimiter;
  /** When this process opened the context (ms). */
  startedAt: number;
  close(): void;
}

export interface ContextOptions {
  clock?: Clock;
  log?: Logger;
  /** SQLite extensions loaded on the connection before migrations run (src/open.ts gathers the areas'). */
  extensions?: readonly SqliteExtension[];
}

/** Opens the data dir `svc setup` prepared: keys, database (migrated to this build), core services. */
export function createContext(config: Config, options: ContextOptions = {}): Context {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.log_level);
  const p = paths(config);
  const sealer = Sealer.fromKeyFile(p.masterKey);
  const signer = Signer.fromKeyFile(p.signerKey, sealer);
  const db = openDb(p.db, { extensions: options.extensions });
  try {
    const { applied } = applyMigrations(db, migrations, clock.now());
    if (applied.length) log.info("database migrated", { applied });
  } catch (err) {
    db.close();
    throw err;
  }
  const tx = new Transactions(db);
  const reads = new ReadCache(db, tx);
  const events = new Bus<OutboxEvent>();
  const outbox = new Outbox(db, tx, clock, events);
  // Reservations stay in memory while this process spends alone (core/money-lease.ts): taken on the first spend, let go on close.
  const lease = new MoneyLease(`${p.db}.money-lease`);
  lease.onChange((mode, why) => log.debug("money lease", { mode: mode ?? "none", why }));
  const ledger = new Ledger(db, tx, clock, lease);
  const scheduler = new Scheduler(db, tx, clock, log, {
    pollMs: config.scheduler.poll_ms,
    leaseMs: config.scheduler.lease_secs * 1000,
    concurrency: config.scheduler.concurrency,
  });
  // The areas' fields are set by their modules' wire() (src/open.ts), before anyone reads them.
  const ctx = {
    config,
    paths: p,
    version: VERSION,
    clock,
    log,
    db,
    tx,
    reads,
    events,
    outbox,
    ledger,
    meter: new Meter(db, tx, clock, ledger, outbox, new Bus<UsageEvent>(), reads),
    audit: new AuditLog(db, clock),
    scheduler,
    sealer,
    signer,
    cursors: new Cursors(sealer.deriveKey("cursor")),
    telemetry: new Telemetry(),
    publicLimiter: new RateLimiter(clock, { perMinute: config.rate_limit.public_per_minute, burst: config.rate_limit.public_burst }),
    startedAt: clock.now(),
    close: () => {
      lease.release();
      closeDb(db);
    },
  } as Context;
  return ctx;
}
