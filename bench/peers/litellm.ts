/**
 * LiteLLM's proxy (PyPI `litellm[proxy]`) in a virtualenv of its own, started with its `litellm`
 * command and a config.yaml of one model: `bench-model` → `openai/stub-model` with `api_base` the
 * stub. A master key is set because the proxy refuses to start without one (every request
 * presents it, as every svc request presents an API key); no database, so nothing is logged or
 * spent per key. Its defaults otherwise: one uvicorn worker, access log on.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../support.ts";
import { type InstallContext, type Installed, installStep, need, notInstalled, type PeerGateway, present } from "./gateway.ts";

/** The version these figures were taken with; another one in the cache is replaced. */
const VERSION = "1.108.7";

async function installedVersion(python: string): Promise<string | null> {
  if (!present(python)) return null;
  const r = await run([python, "-c", "import importlib.metadata as m; print(m.version('litellm'))"]);
  return r.code === 0 ? r.stdout.trim() : null;
}

async function install(ctx: InstallContext): Promise<Installed> {
  try {
    const venv = join(ctx.dir, "venv");
    const python = join(venv, "bin", "python");
    const found = await installedVersion(python);
    if (ctx.skipInstall) {
      if (!found) return { ok: false, reason: `--skip-install and no litellm in ${venv}` };
    } else if (found !== VERSION) {
      if (!present(python)) await installStep(ctx, "python3 -m venv", [need("python3"), "-m", "venv", venv]);
      await installStep(ctx, "pip install", [python, "-m", "pip", "install", "--disable-pip-version-check", "--quiet", `litellm[proxy]==${VERSION}`]);
    }
    const version = await installedVersion(python);
    const litellm = join(venv, "bin", "litellm");
    if (!version || !present(litellm)) return { ok: false, reason: `${litellm} missing after the install` };
    const pythonVersion = (await run([python, "--version"])).stdout.trim();
    return { ok: true, version: `${version} on ${pythonVersion}`, home: litellm };
  } catch (err) {
    return notInstalled(err);
  }
}

export const litellm: PeerGateway = {
  name: "litellm",
  describe: `litellm[proxy] ${VERSION}, config.yaml: bench-model → openai/stub-model, api_base <stub>/v1, master key`,
  install,
  launch(installed, { port, stubUrl, runDir }) {
    const masterKey = `sk-${randomBytes(16).toString("hex")}`;
    const config = join(runDir, "litellm.yaml");
    writeFileSync(
      config,
      [
        "model_list:",
        "  - model_name: bench-model",
        "    litellm_params:",
        "      model: openai/stub-model",
        `      api_base: ${stubUrl}/v1`,
        "      api_key: sk-bench",
        "general_settings:",
        `  master_key: ${masterKey}`,
        "",
      ].join("\n"),
    );
    return {
      cmd: [installed.home, "--config", config, "--host", "127.0.0.1", "--port", String(port)],
      // The cost map ships inside the package; without this it is fetched from GitHub at startup, which is not reachable here.
      env: { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: "True" },
      readyPath: "/health/liveliness",
      ready: (status) => status === 200,
      chatPath: "/v1/chat/completions",
      headers: { "content-type": "application/json", authorization: `Bearer ${masterKey}` },
      model: "bench-model",
    };
  },
};
