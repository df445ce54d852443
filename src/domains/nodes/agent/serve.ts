/**
 * `svc node serve`: this binary as a fleet node. A runner (the gateway's own, createRunner)
 * over <data dir>/workspaces, the agent's HTTP API on --listen (agent/server.ts), and the
 * heartbeat to --gateway (agent/heartbeat.ts) carrying where the gateway reaches the agent, what
 * it can run, its capacity and a dispatch secret made fresh at each start. SIGTERM/SIGINT stop
 * it: heartbeats end, runs in flight get up to the grace period, the runner closes.
 */
import { availableParallelism } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "../../../core/log.ts";
import { VERSION } from "../../../version.ts";
import { createRunner, type Runner } from "../../sandboxes/index.ts";
import { DISPATCH_SECRET_PREFIX } from "../protocol.ts";
import { referenceBenchMs } from "../speed.ts";
import { HeartbeatLoop } from "./heartbeat.ts";
import { createAgentHandler, MAX_REQUEST_BYTES, prepareDataDir } from "./server.ts";

export interface NodeAgentOptions {
  gateway: string;
  nodeKey: string;
  hostname: string;
  port: number;
  dataDir: string;
  /** Where the gateway reaches this agent; default http://<listen> (with the port actually bound). */
  advertise?: string;
  capacity?: number;
  /** Kinds this node offers; default ["sandbox"]. */
  kinds?: string[];
  heartbeatSecs?: number;
  log: Logger;
  /** Runner settings beyond the workspace and staging dirs (e.g. a bwrap path). */
  runner?: Partial<Parameters<typeof createRunner>[0]>;
  /** Test hook: each heartbeat's outcome. */
  onBeat?: ConstructorParameters<typeof HeartbeatLoop>[0]["onBeat"];
}

export interface RunningAgent {
  url: string;
  endpoint: string;
  runner: Runner;
  heartbeat: HeartbeatLoop;
  /** Resolves when the agent stopped: 0 after a clean stop, 1 when the gateway refused the key. */
  done: Promise<number>;
  stop(graceMs?: number): Promise<void>;
}

export async function startNodeAgent(options: NodeAgentOptions): Promise<RunningAgent> {
  const { log } = options;
  const paths = await prepareDataDir(options.dataDir);
  const runner = await createRunner({ ...options.runner, workspaceRoot: paths.workspaces, stagingDir: paths.staging });
  const posture = runner.posture();
  if (!posture.available) log.warn("this node cannot run sandboxes; it heartbeats, and the gateway never picks it", { reason: posture.reason });
  const secret = `${DISPATCH_SECRET_PREFIX}_${randomBytes(32).toString("base64url")}`;
  const handler = createAgentHandler({ runner, dataDir: options.dataDir, secret, log });
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: options.hostname,
      port: options.port,
      reusePort: false,
      development: false,
      maxRequestBodySize: MAX_REQUEST_BYTES,
      // Runs stream pings every few seconds; 255 s is Bun's maximum.
      idleTimeout: 255,
      fetch: handler,
    });
  } catch (err) {
    await runner.close();
    throw err;
  }
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  const url = `http://${host}:${server.port}`;
  const endpoint = (options.advertise ?? url).replace(/\/+$/, "");
  const bench = referenceBenchMs();
  const done = Promise.withResolvers<number>();
  let stopping: Promise<void> | null = null;

  const stop = (graceMs = 10_000, code = 0) =>
    (stopping ??= (async () => {
      heartbeat.stop();
      const drained = server.stop(false).then(() => true);
      const timedOut = new Promise<boolean>((r) => setTimeout(() => r(false), graceMs));
      if (!(await Promise.race([drained, timedOut]))) {
        log.warn("runs still going after the grace period; closing their connections");
        await server.stop(true);
      }
      await runner.close();
      log.info("svc node stopped");
      done.resolve(code);
    })());

  const heartbeat = new HeartbeatLoop({
    gateway: options.gateway.replace(/\/+$/, ""),
    nodeKey: options.nodeKey,
    intervalSecs: options.heartbeatSecs,
    log,
    onBeat: options.onBeat,
    onRefused: () => void stop(10_000, 1),
    body: () => {
      const p = runner.posture();
      return {
        endpoint,
        version: VERSION,
        dispatch_secret: secret,
        languages: p.available ? p.languages.filter((l) => l.available).map((l) => l.name) : [],
        capacity: options.capacity ?? availableParallelism(),
        kinds: options.kinds ?? ["sandbox"],
        models: [],
        sandbox: { available: p.available, reason: p.reason },
        posture: p,
        bench_ms: bench,
      };
    },
  });
  heartbeat.start();
  log.info("svc node serving", { url, endpoint, gateway: options.gateway, version: VERSION, sandboxes: posture.available, data_dir: options.dataDir });
  return { url, endpoint, runner, heartbeat, done: done.promise, stop: (graceMs) => stop(graceMs) };
}
