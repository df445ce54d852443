/**
 * Portkey's open-source gateway (npm `@portkey-ai/gateway`), run as its package's own
 * build/start-server.js under node (bun when node is missing). It has no config file: each
 * request names its provider in headers. `x-portkey-provider: openai` picks its OpenAI adapter,
 * `x-portkey-custom-host` replaces the OpenAI base URL with the stub's (127.0.0.1 is in its
 * default trusted custom hosts), and the Authorization header is the provider key it forwards.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../support.ts";
import { type InstallContext, type Installed, installStep, need, notInstalled, type PeerGateway, present } from "./gateway.ts";

/** The version these figures were taken with; another one in the cache is replaced. */
const VERSION = "1.15.2";
const PACKAGE = "@portkey-ai/gateway";
const LOOPBACK = join(import.meta.dir, "loopback.mjs");

function installedVersion(dir: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(dir, "node_modules", PACKAGE, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}

async function install(ctx: InstallContext): Promise<Installed> {
  try {
    const found = installedVersion(ctx.dir);
    if (ctx.skipInstall) {
      if (!found) return { ok: false, reason: `--skip-install and no ${PACKAGE} in ${ctx.dir}` };
    } else if (found !== VERSION) {
      // --ignore-scripts: its only script is patch-package for the gateway's own repo, which the package does not ship.
      await installStep(ctx, "npm install", [need("npm"), "install", "--prefix", ctx.dir, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel", "error", `${PACKAGE}@${VERSION}`]);
    }
    const version = installedVersion(ctx.dir);
    const entry = join(ctx.dir, "node_modules", PACKAGE, "build", "start-server.js");
    if (!version || !present(entry)) return { ok: false, reason: `${entry} missing after the install` };
    const node = Bun.which("node");
    const runtime = node ? `node ${(await run([node, "--version"])).stdout.trim()}` : `bun ${Bun.version}`;
    return { ok: true, version: `${version} on ${runtime}`, home: entry };
  } catch (err) {
    return notInstalled(err);
  }
}

export const portkey: PeerGateway = {
  name: "portkey",
  describe: `${PACKAGE} ${VERSION}, start-server.js --headless; headers x-portkey-provider: openai, x-portkey-custom-host: <stub>/v1`,
  install,
  launch(installed, { port, stubUrl }) {
    const node = Bun.which("node");
    // Its start-server.js listens on every interface; the preload pins it to 127.0.0.1.
    const cmd = node ? [node, "--import", LOOPBACK, installed.home] : [process.execPath, "--preload", LOOPBACK, installed.home];
    return {
      cmd: [...cmd, `--port=${port}`, "--headless"],
      readyPath: "/",
      ready: (status) => status === 200,
      chatPath: "/v1/chat/completions",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench", "x-portkey-provider": "openai", "x-portkey-custom-host": `${stubUrl}/v1` },
      model: "stub-model",
    };
  },
};
