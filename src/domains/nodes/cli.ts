/**
 * svc nodes list|enroll|approve|disable|drain: the operator's side of the fleet (the same
 * services as /v1/admin/nodes and the gates). svc node serve: this binary as a fleet node.
 */
import { readFileSync } from "node:fs";
import { type Command, CommandFailed, type Group, locationOptions, str, UsageError } from "../../cli/command.ts";
import { createLogger, type Level } from "../../core/log.ts";
import { startNodeAgent } from "./agent/serve.ts";
import { approveNode, enrollNode, gateNode, listNodes, type AdminNodeView } from "./service.ts";
import { NODE_KEY_PREFIX } from "./service.ts";

const json = { type: "boolean", description: "print JSON" } as const;

const line = (n: AdminNodeView): string =>
  [
    n.id,
    n.status.padEnd(11),
    (n.name ?? "").padEnd(16),
    `kinds ${n.kinds.join(",") || "-"}`,
    `langs ${n.languages.join(",") || "-"}`,
    `cap ${n.capacity ?? "-"}`,
    `in-flight ${n.in_flight}`,
    `reliability ${n.reliability ?? "-"}`,
    `latency ${n.latency_ms === null ? "-" : `${n.latency_ms}ms`}`,
    `speed ${n.speed_factor ?? "-"}`,
    n.endpoint ?? "(no heartbeat yet)",
    n.account_id ? `account ${n.account_id}` : "",
    n.sandbox_reason ? `(cannot run sandboxes: ${n.sandbox_reason})` : "",
  ]
    .filter(Boolean)
    .join("  ");

const list: Command = {
  name: "nodes list",
  summary: "Enrolled fleet nodes: status, languages, capacity, reliability, endpoint",
  options: { ...locationOptions, json },
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const nodes = listNodes(ctx);
      if (values.json) return void console.log(JSON.stringify(nodes, null, 2));
      if (!nodes.length) return void console.log("no nodes (enrol one: svc nodes enroll --name NAME)");
      for (const n of nodes) console.log(line(n));
    }),
};

const enroll: Command = {
  name: "nodes enroll",
  summary: "Enrol a fleet node (its nk-svc_ key is printed once)",
  options: {
    ...locationOptions,
    json,
    name: { type: "string", value: "TEXT", description: "a label (required)" },
    kinds: { type: "string", value: "LIST", description: "comma-separated kinds (default: sandbox)" },
    account: { type: "string", value: "ACCOUNT_ID", description: "the account whose sessions may drain and disable it (default: the operator only)" },
  },
  details: `
Then start the node with the key, on the node's host:
  svc node serve --gateway https://gateway.example --node-key nk-svc_… --listen 0.0.0.0:8091 \\
    --advertise http://10.0.0.7:8091 --data-dir /var/lib/svc-node
and approve it once it heartbeats: svc nodes approve NODE_ID (docs/nodes.md).`,
  run: ({ values }, host) => {
    const name = str(values.name);
    if (!name) throw new UsageError("--name TEXT is required");
    const kinds = str(values.kinds)?.split(",").map((k) => k.trim()).filter(Boolean);
    for (const k of kinds ?? []) if (!/^[a-z][a-z0-9_-]{0,31}$/.test(k)) throw new UsageError(`--kinds: "${k}" must be a lower-case word`);
    return host.withContext(values, (ctx) => {
      const enrolled = enrollNode(ctx, "cli", { name, kinds, accountId: str(values.account) ?? null });
      if (values.json) return void console.log(JSON.stringify(enrolled, null, 2));
      console.log(`enrolled ${enrolled.node_id} "${enrolled.name}" (kinds: ${enrolled.kinds.join(", ")}${enrolled.account_id ? `; gated by ${enrolled.account_id}` : ""})`);
      console.log(`node key (shown once; only its sha256 is stored): ${enrolled.node_key}`);
      console.log(`start it: svc node serve --gateway ${ctx.config.public_url} --node-key <key> --listen HOST:PORT --data-dir DIR`);
      console.log(`then: svc nodes approve ${enrolled.node_id}`);
    });
  },
};

const approve: Command = {
  name: "nodes approve",
  summary: "Let the gateway dispatch to a node (--revoke withdraws approval)",
  args: "NODE_ID",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, json, revoke: { type: "boolean", description: "withdraw approval: nothing more is dispatched, its sessions stop" } },
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const node = approveNode(ctx, "cli", positionals[0]!, !values.revoke);
      if (values.json) return void console.log(JSON.stringify(node, null, 2));
      console.log(`${node.id}: ${values.revoke ? "approval withdrawn" : "approved"} (status ${node.status})`);
      if (!values.revoke && node.status === "pending") console.log("it takes work once it heartbeats (start it with svc node serve)");
    }),
};

const gateCommand = (gate: "disabled" | "draining", word: string, summary: string, details: string): Command => ({
  name: `nodes ${word}`,
  summary,
  args: "NODE_ID",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, json, off: { type: "boolean", description: `lift the gate (${gate} = false)` } },
  details,
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const node = gateNode(ctx, { actor: "cli" }, positionals[0]!, gate, !values.off);
      if (values.json) return void console.log(JSON.stringify(node, null, 2));
      console.log(`${node.id}: ${gate} ${values.off ? "off" : "on"} (status ${node.status})`);
    }),
});

const disable = gateCommand(
  "disabled",
  "disable",
  "Take a node out of service: nothing is dispatched to it and its sessions stop (--off puts it back)",
  "Its sessions stop with node_unreachable, as when it is lost. To let sessions finish first, drain it.",
);
const drain = gateCommand("draining", "drain", "Send a node no new runs or sessions; its sessions continue (--off ends draining)", "When its sessions have ended it can be stopped or disabled without interrupting anyone.");

export const nodesGroup: Group = { name: "nodes", summary: "Fleet nodes: list, enroll, approve, disable, drain", commands: [list, enroll, approve, disable, drain] };

// ---------------------------------------------------------------------------------------------
// svc node serve

function nodeKeyFrom(values: Record<string, unknown>): string {
  const flag = str(values["node-key"] as string | undefined);
  const file = str(values["node-key-file"] as string | undefined);
  if (flag && file) throw new UsageError("give --node-key or --node-key-file, not both");
  let key = flag ?? process.env.SVC_NODE_KEY;
  if (file) {
    try {
      key = readFileSync(file, "utf8").trim();
    } catch (err) {
      throw new UsageError(`--node-key-file: ${(err as Error).message}`);
    }
  }
  if (!key) throw new UsageError("the node key is required: --node-key nk-svc_…, --node-key-file PATH or SVC_NODE_KEY");
  if (!key.startsWith(`${NODE_KEY_PREFIX}_`)) throw new UsageError(`the node key must start with ${NODE_KEY_PREFIX}_ (from svc nodes enroll)`);
  return key;
}

function httpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: "${value}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${flag}: must be an http:// or https:// URL`);
  return url.href.replace(/\/+$/, "");
}

const serve: Command = {
  name: "node serve",
  summary: "Run this binary as a fleet node: sandboxes for a gateway, until SIGTERM/SIGINT",
  options: {
    gateway: { type: "string", value: "URL", description: "the gateway's public URL (required)" },
    "node-key": { type: "string", value: "KEY", description: "the nk-svc_ key from svc nodes enroll (or --node-key-file, or $SVC_NODE_KEY: kept out of ps)" },
    "node-key-file": { type: "string", value: "PATH", description: "a file holding the node key" },
    listen: { type: "string", value: "HOST:PORT", description: "where the agent listens (default 127.0.0.1:8091)" },
    advertise: { type: "string", value: "URL", description: "where the gateway reaches it (default http://<listen>; required when listening on 0.0.0.0 or ::)" },
    "data-dir": { type: "string", value: "DIR", description: "workspaces and snapshots (default ./node-data)" },
    capacity: { type: "string", value: "N", description: "executions at once (default: the CPU count)" },
    kinds: { type: "string", value: "LIST", description: "kinds it offers (default: sandbox)" },
    "heartbeat-secs": { type: "string", value: "N", description: "heartbeat interval (default: what the gateway says, nodes.heartbeat_secs)" },
    "log-level": { type: "string", value: "LEVEL", description: "debug, info (default), warn or error" },
  },
  details: `
The node needs bubblewrap (bwrap) and util-linux (prlimit; setpriv when root), like a gateway
that runs sandboxes; without them it heartbeats but reports that it cannot run sandboxes and is
never picked. The gateway calls the agent with a secret the agent makes at each start and sends
in its heartbeats; the agent answers nothing else (docs/nodes.md).`,
  async run({ values }) {
    const gatewayFlag = str(values.gateway);
    if (!gatewayFlag) throw new UsageError("--gateway URL is required");
    const gateway = httpUrl(gatewayFlag, "--gateway");
    const nodeKey = nodeKeyFrom(values);
    const listen = str(values.listen) ?? "127.0.0.1:8091";
    const i = listen.lastIndexOf(":");
    const hostname = listen.slice(0, i).replace(/^\[|\]$/g, "");
    const port = Number(listen.slice(i + 1));
    if (i < 1 || !hostname || !Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--listen: "${listen}" is not HOST:PORT`);
    const advertiseFlag = str(values.advertise);
    const advertise = advertiseFlag ? httpUrl(advertiseFlag, "--advertise") : undefined;
    if (!advertise && (hostname === "0.0.0.0" || hostname === "::")) throw new UsageError("--advertise URL is required when listening on every address (the gateway needs one it can reach)");
    const int = (flag: string, min: number, max: number): number | undefined => {
      const text = str(values[flag]);
      if (text === undefined) return undefined;
      const n = Number(text);
      if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${flag}: must be a whole number from ${min} to ${max}`);
      return n;
    };
    const capacity = int("capacity", 1, 100_000);
    const heartbeatSecs = int("heartbeat-secs", 1, 3600);
    const kinds = str(values.kinds)?.split(",").map((k) => k.trim()).filter(Boolean);
    const level = (str(values["log-level"]) ?? "info") as Level;
    if (!["debug", "info", "warn", "error"].includes(level)) throw new UsageError("--log-level: debug, info, warn or error");

    let agent;
    try {
      agent = await startNodeAgent({
        gateway,
        nodeKey,
        hostname,
        port,
        dataDir: str(values["data-dir"]) ?? "node-data",
        advertise,
        capacity,
        kinds,
        heartbeatSecs,
        log: createLogger(level),
      });
    } catch (err) {
      throw new CommandFailed(`could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
    const onSignal = () => void agent.stop();
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    return agent.done;
  },
};

export const nodeGroup: Group = { name: "node", summary: "Run this binary as a fleet node: serve", commands: [serve] };
