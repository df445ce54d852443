/** svc serve: HTTP, scheduler and (later) replication in one process, until SIGTERM/SIGINT. */
import { createLogger } from "../src/core/log.ts";
import { restoreIfMissing } from "../src/domains/backup/index.ts";
import { removePid, writePid } from "../src/domains/backup/index.ts";
import { stopOrphanedLitestream } from "../src/domains/backup/index.ts";
import { paths } from "../src/config.ts";
import { type RunningServer, startServer } from "../src/server.ts";
import { type Command, locationOptions, str } from "../src/cli/command.ts";
import { configFrom, openFrom } from "../src/cli/host.ts";

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the gateway: HTTP API and job scheduler in one process",
  options: {
    ...locationOptions,
    listen: { type: "string", value: "HOST:PORT", description: "override the listen address for this run" },
  },
  details: `Environment variables override svc.toml: SVC_DATA_DIR, SVC_CONFIG, SVC_LISTEN,
SVC_PUBLIC_URL, SVC_ADMIN_TOKEN, SVC_METRICS_TOKEN, SVC_LOG_LEVEL, … (docs/configuration.md).
SIGTERM or SIGINT stops gracefully: in-flight requests finish, jobs are handed back, the
database is checkpointed and closed.`,
  async run({ values }) {
    const listen = str(values.listen);
    if (listen) process.env.SVC_LISTEN = listen;
    const config = configFrom(values); // fail on a bad config before touching anything
    const pidFile = paths(config).servePid;
    const done = Promise.withResolvers<number>();
    let running: RunningServer | null = null;
    let stopRequested = false;
    const stop = (server: RunningServer) =>
      server.stop().then(
        () => {
          removePid(pidFile);
          done.resolve(0);
        },
        (err) => {
          console.error(`svc serve: shutdown failed: ${String(err)}`);
          done.resolve(1);
        },
      );
    // Handlers first: a SIGTERM during start-up (restore, replication) still stops cleanly.
    const onSignal = () => {
      if (running) void stop(running);
      else stopRequested = true;
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);

    // A lost database comes back from the replica before anything opens (and would recreate) it,
    // and only once no litestream from a crashed run is still replicating it.
    const log = createLogger(config.log_level);
    await stopOrphanedLitestream(config, log);
    await restoreIfMissing(config, log);
    const ctx = openFrom(values, { useConfiguredLogLevel: true });
    try {
      running = await startServer(ctx);
    } catch (err) {
      ctx.close();
      throw err;
    }
    writePid(pidFile, process.pid);
    if (stopRequested) void stop(running);
    return done.promise;
  },
};
