#!/usr/bin/env bun
/**
 * svc: the gateway's one executable. `bun build --compile` turns this file into dist/svc.
 * The appliance's own commands live here; each area's are in its folder (src/domains/<area>/cli*.ts)
 * and reach the tree through its module (cli/tree.ts). They call the same services as the HTTP routes.
 *
 * Nothing but the outbound-requests check loads before it runs: `serve` may start over as itself
 * with the runtime's limit raised (src/core/outbound-requests.ts), and the program proper is only
 * worth loading once, in the process that stays.
 */
// The X.509 library behind passkeys and provenance needs this polyfill before it loads. In a bundle
// a CommonJS side-effect import inside a lazily loaded module runs after that module's ES imports,
// so the areas' own `import "reflect-metadata"` would come too late: the entry loads it first.
import "reflect-metadata";
import { readFileSync } from "node:fs";
import { raiseOutboundLimit } from "../src/core/outbound-requests.ts";

raiseOutboundLimit(process as Parameters<typeof raiseOutboundLimit>[0], () => readFileSync("/proc/self/limits", "utf8"));
// Not a top-level await: the binary is bytecode-compiled (package.json's build), which needs a
// CommonJS bundle. The interval keeps the process alive until the command exits, as a pending
// top-level await would (serve's start-up waits on unref'd worker threads).
const keepAlive = setInterval(() => {}, 1 << 30);
import("./run.ts")
  .then(({ runCli }) => runCli(process.argv.slice(2)))
  .then(
    (code) => process.exit(code),
    (err: unknown) => {
      clearInterval(keepAlive);
      throw err;
    },
  );
