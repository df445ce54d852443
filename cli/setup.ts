/**
 * svc setup: prepare a data dir (config, master key, receipt signer key, database).
 * Interactive with a terminal; `--yes` takes the flags and asks nothing. Re-running keeps
 * every key and says so.
 */
import * as p from "@clack/prompts";
import { dirname, resolve } from "node:path";
import { type Config, configPathFor, DEFAULT_LISTEN, publicUrlFor, readConfigFile } from "../src/config.ts";
import { loadConfig } from "../src/open.ts";
import { newSecret } from "../src/core/secrets.ts";
import { createLogger } from "../src/core/log.ts";
import { defaultReplicaUrl, parseReplica, ReplicaUrlError } from "../src/domains/backup/index.ts";
import { runningServer } from "../src/domains/backup/index.ts";
import { parseEvmAddress } from "../src/domains/billing/index.ts";
import { type SetupInput, type SetupReport, setupWithRestore } from "../src/setup.ts";
import { type Command, CommandFailed, locationOptions, str, UsageError } from "../src/cli/command.ts";

const LISTEN = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/;
const URL_RE = /^https?:\/\/[^/\s]+\/?$/;

function printReport(report: SetupReport, tokens: { admin?: string; metrics?: string }): void {
  for (const line of report.created) console.log(`created  ${line}`);
  for (const line of report.changed) console.log(`changed  ${line}`);
  for (const line of report.kept) console.log(`kept     ${line} (already present; not replaced)`);
  console.log(`receipt signer address: ${report.signer_address}`);
  if (tokens.admin) console.log(`admin token (shown once; only its sha256 is stored): ${tokens.admin}`);
  if (tokens.metrics) console.log(`metrics token (shown once; only its sha256 is stored): ${tokens.metrics}`);
  console.log(`start it with: svc serve --config ${report.config_path}`);
}

async function wizard(base: SetupInput): Promise<{ input: SetupInput; tokens: { admin?: string; metrics?: string } } | null> {
  // A terminal that goes away mid-question (ssh dropped, pty closed) would leave the prompt
  // reading EOF forever; nothing has been written yet, so leave.
  const gone = () => {
    process.stderr.write("\nsvc setup: the terminal closed; nothing was changed\n");
    process.exit(1);
  };
  process.stdin.once("end", gone);
  process.stdin.once("close", gone);
  process.stdin.once("error", gone);
  p.intro("svc setup");
  const stop = (v: unknown): v is symbol => {
    if (p.isCancel(v)) {
      p.cancel("setup cancelled; nothing was changed");
      return true;
    }
    return false;
  };
  const existing = readConfigFile(base.configPath);
  const listen = await p.text({
    message: "Address to listen on (host:port)",
    initialValue: base.listen ?? (existing.listen as string | undefined) ?? DEFAULT_LISTEN,
    validate: (v) => (v && LISTEN.test(v) ? undefined : "expected host:port, e.g. 127.0.0.1:8080"),
  });
  if (stop(listen)) return null;
  const publicUrl = await p.text({
    message: "Public URL clients use to reach it (scheme://host[:port])",
    initialValue: base.publicUrl ?? (existing.public_url as string | undefined) ?? publicUrlFor(listen),
    validate: (v) => (v && URL_RE.test(v) ? undefined : "expected http(s)://host[:port] with no path"),
  });
  if (stop(publicUrl)) return null;
  const currentReplica = (existing.backup as { replica?: string } | undefined)?.replica;
  const replica = await p.text({
    message: "Where should database replicas go? (file:///dir, s3://bucket/path?endpoint=…, or off)",
    initialValue: base.replica ?? currentReplica ?? defaultReplicaUrl(base.dataDir),
    validate: (v) => {
      try {
        parseReplica(v ?? "");
        return undefined;
      } catch (err) {
        return err instanceof ReplicaUrlError ? err.message : String(err);
      }
    },
  });
  if (stop(replica)) return null;
  const currentTreasury = (existing.billing as { treasury?: string } | undefined)?.treasury ?? "";
  const treasury = await p.text({
    message: "Treasury address for USDT deposits and x402 payments (0x…; leave empty to keep deposits off)",
    initialValue: base.treasury ?? currentTreasury,
    validate: (v) => {
      if (!v) return undefined;
      try {
        parseEvmAddress(v);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  if (stop(treasury)) return null;
  const tokens: { admin?: string; metrics?: string } = {};
  const hasAdmin = Boolean((existing.admin as { token_sha256?: string } | undefined)?.token_sha256);
  const admin = await p.confirm({ message: hasAdmin ? "Replace the admin token (the admin API stays on)?" : "Enable the admin API with a new admin token?", initialValue: !hasAdmin });
  if (stop(admin)) return null;
  if (admin) tokens.admin = newSecret("svcadm");
  const hasMetrics = Boolean((existing.metrics as { token_sha256?: string } | undefined)?.token_sha256);
  const metrics = await p.confirm({ message: hasMetrics ? "Replace the metrics token?" : "Enable /metrics (Prometheus) with a new metrics token?", initialValue: !hasMetrics });
  if (stop(metrics)) return null;
  if (metrics) tokens.metrics = newSecret("svcmet");
  p.outro("writing configuration and keys");
  return { input: { ...base, listen, publicUrl, replica, treasury: treasury ?? "", adminToken: tokens.admin, metricsToken: tokens.metrics }, tokens };
}

export const setupCommand: Command = {
  name: "setup",
  summary: "Create or update a data dir: config, master key, receipt signer key, database",
  options: {
    ...locationOptions,
    yes: { type: "boolean", short: "y", description: "ask nothing; use the flags and defaults" },
    listen: { type: "string", value: "HOST:PORT", description: `address to listen on (default ${DEFAULT_LISTEN})` },
    "public-url": { type: "string", value: "URL", description: "URL clients use to reach svc (default: from --listen)" },
    "admin-token": { type: "string", value: "TOKEN", description: "enable the admin API with this token (stored as sha256)" },
    "metrics-token": { type: "string", value: "TOKEN", description: "enable /metrics with this token (stored as sha256)" },
    "generate-admin-token": { type: "boolean", description: "enable the admin API with a generated token, printed once" },
    "generate-metrics-token": { type: "boolean", description: "enable /metrics with a generated token, printed once" },
    replica: { type: "string", value: "URL", description: "where Litestream replicas go: file:///dir, s3://bucket/path?…, or off (default: a directory beside the data dir)" },
    treasury: { type: "string", value: "ADDRESS", description: "where USDT deposits and x402 payments go (billing.treasury); off turns them off" },
    "allow-private-webhooks": { type: "boolean", description: "let webhooks target private, loopback and link-local addresses (webhooks.allow_private; tests and private deployments)" },
  },
  details: `Idempotent: existing keys are kept (never replaced) and reported as kept.
When the database is missing and the replica holds a backup (a new machine pointed at an
old replica), the database is restored from it first. Without a terminal, pass --yes.
Example: svc setup --yes --data-dir /var/lib/svc --listen 0.0.0.0:8080 --public-url https://svc.example.com`,
  async run({ values }) {
    const dataDirFlag = str(values["data-dir"]) ?? process.env.SVC_DATA_DIR;
    const configPath = configPathFor({ config: str(values.config), dataDir: dataDirFlag }, process.env);
    const existing = readConfigFile(configPath);
    const dataDir = dataDirFlag
      ? resolve(dataDirFlag)
      : typeof existing.data_dir === "string"
        ? resolve(dirname(configPath), existing.data_dir)
        : dirname(configPath);
    const listen = str(values.listen);
    const publicUrl = str(values["public-url"]);
    if (listen && !LISTEN.test(listen)) throw new UsageError(`--listen must be host:port, got "${listen}"`);
    if (publicUrl && !URL_RE.test(publicUrl)) throw new UsageError(`--public-url must be http(s)://host[:port], got "${publicUrl}"`);
    const replica = str(values.replica);
    if (replica !== undefined) {
      try {
        parseReplica(replica);
      } catch (err) {
        throw new UsageError(`--replica: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const treasuryFlag = str(values.treasury);
    let treasury: string | undefined;
    if (treasuryFlag !== undefined) {
      try {
        treasury = treasuryFlag === "off" || treasuryFlag === "" ? "" : parseEvmAddress(treasuryFlag);
      } catch (err) {
        throw new UsageError(`--treasury: ${(err as Error).message}`);
      }
    }
    const tokens: { admin?: string; metrics?: string } = {};
    if (values["generate-admin-token"]) tokens.admin = newSecret("svcadm");
    if (values["generate-metrics-token"]) tokens.metrics = newSecret("svcmet");
    let input: SetupInput = {
      configPath,
      dataDir,
      listen,
      publicUrl,
      adminToken: str(values["admin-token"]) ?? tokens.admin,
      metricsToken: str(values["metrics-token"]) ?? tokens.metrics,
      replica,
      treasury,
      allowPrivateWebhooks: values["allow-private-webhooks"] ? true : undefined,
    };
    if (!values.yes) {
      if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError("no terminal to ask questions on; pass --yes to set up with flags and defaults");
      const answered = await wizard(input);
      if (!answered) return 1;
      input = answered.input;
      Object.assign(tokens, answered.tokens);
    }
    let report: SetupReport;
    let config: Config;
    try {
      report = await setupWithRestore(input, createLogger("warn"));
      config = loadConfig({ config: configPath }); // proves the written file is valid
    } catch (err) {
      throw new CommandFailed(err instanceof Error ? err.message : String(err));
    }
    printReport(report, tokens);
    if (input.treasury !== undefined) console.log(`treasury: ${config.billing.treasury || "off (USDT deposits and x402 payments are refused)"}`);
    // svc serve reads svc.toml once at start: a changed config waits for a restart.
    const pid = runningServer(config);
    if (pid && report.changed.some((line) => line.startsWith("config "))) console.log(`svc serve (pid ${pid}) is running: restart it to apply the changed configuration (systemctl restart svc)`);
  },
};
