/** svc serve: HTTP, scheduler and (later) replication in one process, until SIGTERM/SIGINT. */
import { startServer } from "../src/server.ts";
import { type Command, locationOptions, str } from "./command.ts";
import { configFrom, openFrom } from "./open.ts";

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
    configFrom(values); // fail on a bad config before touching anything
    const ctx = openFrom(values, { useConfiguredLogLevel: true });
    let running;
    try {
      running = startServer(ctx);
    } catch (err) {
      ctx.close();
      throw err;
    }
    const done = Promise.withResolvers<number>();
    const onSignal = (signal: string) => {
      ctx.log.info("signal received", { signal });
      running.stop().then(() => done.resolve(0), (err) => {
        ctx.log.error("shutdown failed", { error: String(err) });
        done.resolve(1);
      });
    };
    process.once("SIGTERM", () => onSignal("SIGTERM"));
    process.once("SIGINT", () => onSignal("SIGINT"));
    return done.promise;
  },
};
