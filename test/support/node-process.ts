/**
 * A fleet node as its own process: `bun cli/main.ts node serve …` (the same code as the compiled
 * binary's `svc node serve`), on a free 127.0.0.1 port, with a data dir the sandbox uid can reach.
 * Its PID is recorded: the test ends it (stop, or kill9 to simulate a crash), and the file's
 * clean-up kills it if an assertion failed first. Nothing else is ever signalled.
 */
import { join } from "node:path";
import { freePort, ROOT } from "./binary.ts";
import { onCleanup } from "./cleanup.ts";
import { sandboxTempDir } from "./sandbox-runner.ts";

export interface NodeProcess {
  pid: number;
  /** The agent's base URL (also what it advertises to the gateway). */
  url: string;
  dataDir: string;
  /** Everything it wrote to stderr so far (its JSON log lines). */
  log(): string;
  /** SIGKILL: a crash; resolves when it is gone. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (bounded, then SIGKILL); returns the exit code. */
  stop(): Promise<number>;
  exited: Promise<number>;
}

export async function startNodeProcess(options: {
  gateway: string;
  nodeKey: string;
  capacity?: number;
  heartbeatSecs?: number;
  dataDir?: string;
  extraArgs?: string[];
}): Promise<NodeProcess> {
  const port = await freePort();
  const dataDir = options.dataDir ?? join(sandboxTempDir("svc-node"), "data");
  const args = [
    process.execPath,
    join(ROOT, "cli/main.ts"),
    "node",
    "serve",
    "--gateway",
    options.gateway,
    "--listen",
    `127.0.0.1:${port}`,
    "--data-dir",
    dataDir,
    "--log-level",
    "debug",
    ...(options.capacity !== undefined ? ["--capacity", String(options.capacity)] : []),
    ...(options.heartbeatSecs !== undefined ? ["--heartbeat-secs", String(options.heartbeatSecs)] : []),
    ...(options.extraArgs ?? []),
  ];
  // The key travels in the environment, as an operator's unit file would pass it (not in argv, not in ps).
  const proc = Bun.spawn(args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", SVC_NODE_KEY: options.nodeKey },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const pid = proc.pid;
  onCleanup(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`svc node serve exited with ${proc.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(500) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`svc node serve did not answer /healthz: ${stderr}`);
    }
    await Bun.sleep(25);
  }
  return {
    pid,
    url,
    dataDir,
    log: () => stderr,
    exited: proc.exited,
    async kill9() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
    async stop() {
      proc.kill("SIGTERM");
      const timeout = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timeout);
      return code;
    },
  };
}
