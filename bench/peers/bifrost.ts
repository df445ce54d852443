/**
 * Bifrost (github.com/maximhq/bifrost): its engine, the Go module `core`, behind the small
 * OpenAI-compatible fasthttp front in bifrost/main.go, built with the Go toolchain through the
 * Go module proxy. Bifrost's own HTTP transport (module `.../transports`) would be the thing to
 * run, but the module proxy reachable here answers 403 for every version of it, while it serves
 * `core`; so this row measures Bifrost's request path (its OpenAI provider, key selection,
 * worker queue and fasthttp client, its JSON types) without the transport's plugins and config
 * store. One OpenAI provider whose base URL is the stub; the model is `openai/stub-model`.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../support.ts";
import { type InstallContext, type Installed, installStep, need, notInstalled, type PeerGateway, present } from "./gateway.ts";

const CORE = "v1.3.0";
/** core v1.3.0 asks for sonic v1.14.2, which does not compile with Go 1.26; v1.15.1 is what Bifrost's transport now uses. */
const SONIC = "v1.15.1";
const SHIM = join(import.meta.dir, "bifrost", "main.go");

async function install(ctx: InstallContext): Promise<Installed> {
  try {
    const bin = join(ctx.dir, "bin", "bifrost-bench");
    const stampPath = join(ctx.dir, "bin", "stamp");
    const built = present(stampPath) && present(bin) ? readFileSync(stampPath, "utf8") : null;
    if (ctx.skipInstall) return built ? { ok: true, version: built, home: bin } : { ok: false, reason: `--skip-install and no ${bin} (with its stamp)` };
    const go = need("go");
    const goVersion = (await run([go, "env", "GOVERSION"])).stdout.trim();
    // Rebuilt whenever the shim, the pins or the toolchain change.
    const shimHash = new Bun.CryptoHasher("sha256").update(readFileSync(SHIM)).digest("hex").slice(0, 12);
    const stamp = `core ${CORE} + bench HTTP shim (sha256 ${shimHash}), sonic ${SONIC}, ${goVersion}`;
    if (built !== stamp) {
      const src = join(ctx.dir, "src");
      rmSync(src, { recursive: true, force: true });
      mkdirSync(src, { recursive: true });
      copyFileSync(SHIM, join(src, "main.go"));
      const env = { ...process.env, GOFLAGS: "-mod=mod" };
      const goCmd = (what: string, args: string[]) => installStep(ctx, what, [go, ...args], { cwd: src, env });
      await goCmd("go mod init", ["mod", "init", "svc-bench-bifrost"]);
      await goCmd("go get", ["get", `github.com/maximhq/bifrost/core@${CORE}`, `github.com/bytedance/sonic@${SONIC}`]);
      await goCmd("go mod tidy", ["mod", "tidy"]);
      await goCmd("go build", ["build", "-trimpath", "-o", bin, "."]);
      writeFileSync(stampPath, stamp);
    }
    return { ok: true, version: stamp, home: bin };
  } catch (err) {
    return notInstalled(err);
  }
}

export const bifrost: PeerGateway = {
  name: "bifrost",
  describe: `github.com/maximhq/bifrost/core ${CORE} behind bench/peers/bifrost/main.go (fasthttp); provider openai, base URL <stub>, model openai/stub-model`,
  install,
  launch(installed, { port, stubUrl }) {
    return {
      cmd: [installed.home, "-host", "127.0.0.1", "-port", String(port), "-upstream", stubUrl],
      readyPath: "/health",
      ready: (status) => status === 200,
      chatPath: "/v1/chat/completions",
      headers: { "content-type": "application/json" },
      model: "openai/stub-model",
    };
  },
};
