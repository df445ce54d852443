/**
 * `svc nodes list|enroll|approve|disable|drain` and `svc node serve`'s argument checks, run
 * in-process through the CLI tree on a data dir a harness set up (the commands open their own
 * context, as they do from the binary). The running `svc node serve` is in fleet-process.test.ts.
 */
import { afterEach, expect, test } from "bun:test";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { svcInProcess } from "../../support/cli-inprocess.ts";

let h: Harness;
afterEach(() => h?.close());

const svc = svcInProcess;

test("enroll prints the key once; approve, drain, disable and list act on the same records as the API", async () => {
  h = makeHarness();
  const loc = ["--data-dir", h.dir];
  const { account } = accountWithSession(h.ctx);
  const enrolled = await svc("nodes", "enroll", "--name", "edge-1", "--kinds", "sandbox,gpu", "--account", account.id, "--json", ...loc);
  expect(enrolled.code).toBe(0);
  const node = JSON.parse(enrolled.out);
  expect(node).toMatchObject({ name: "edge-1", kinds: ["sandbox", "gpu"], account_id: account.id, status: "pending" });
  expect(node.node_key).toStartWith("nk-svc_");
  const stored = h.ctx.db.query<{ key_sha256: string }, [string]>("SELECT key_sha256 FROM nodes WHERE id = ?").get(node.node_id)!;
  expect(stored.key_sha256).toBe(sha256Hex(node.node_key));

  const plain = await svc("nodes", "enroll", "--name", "edge-2", ...loc);
  expect(plain.code).toBe(0);
  expect(plain.out).toContain("node key (shown once; only its sha256 is stored): nk-svc_");
  expect(plain.out).toContain("svc nodes approve node_");

  expect((await svc("nodes", "approve", node.node_id, ...loc)).out).toContain(`${node.node_id}: approved (status pending)`);
  expect((await svc("nodes", "drain", node.node_id, ...loc)).out).toContain("draining on");
  expect((await svc("nodes", "disable", node.node_id, ...loc)).out).toContain("disabled on");
  const listed = JSON.parse((await svc("nodes", "list", "--json", ...loc)).out);
  expect(listed).toHaveLength(2);
  expect(listed[0]).toMatchObject({ id: node.node_id, approved: true, draining: true, disabled: true, key_prefix: node.node_key.slice(0, 13), endpoint: null });
  expect(JSON.stringify(listed)).not.toContain(node.node_key);
  expect((await svc("nodes", "disable", node.node_id, "--off", ...loc)).out).toContain("disabled off");
  expect((await svc("nodes", "drain", node.node_id, "--off", ...loc)).out).toContain("draining off");
  expect((await svc("nodes", "approve", node.node_id, "--revoke", ...loc)).out).toContain("approval withdrawn");
  const text = (await svc("nodes", "list", ...loc)).out;
  expect(text).toContain(node.node_id);
  expect(text).toContain("(no heartbeat yet)");
  expect(h.ctx.audit.recent().map((a) => `${a.actor} ${a.action}`)).toEqual([
    "cli node.unapprove",
    "cli node.draining.off",
    "cli node.disabled.off",
    "cli node.disabled.on",
    "cli node.draining.on",
    "cli node.approve",
    "cli node.enroll",
    "cli node.enroll",
  ]);
});

test("usage errors exit 2, unknown nodes and accounts exit 1", async () => {
  h = makeHarness();
  const loc = ["--data-dir", h.dir];
  expect((await svc("nodes", "enroll", ...loc)).code).toBe(2);
  expect((await svc("nodes", "enroll", "--name", "x", "--kinds", "Bad Kind", ...loc)).code).toBe(2);
  expect((await svc("nodes", "approve", ...loc)).code).toBe(2);
  const unknown = await svc("nodes", "approve", "node_nope", ...loc);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain("node not found");
  expect((await svc("nodes", "drain", "node_nope", ...loc)).code).toBe(1);
  expect((await svc("nodes", "enroll", "--name", "x", "--account", "acct_nope", ...loc)).code).toBe(1);
  expect((await svc("nodes", "list", ...loc)).out).toContain("no nodes");
});

test("svc node serve checks its arguments before starting anything", async () => {
  const saved = process.env.SVC_NODE_KEY;
  delete process.env.SVC_NODE_KEY;
  try {
    const cases: [string[], string][] = [
      [[], "--gateway URL is required"],
      [["--gateway", "ftp://x"], "must be an http:// or https:// URL"],
      [["--gateway", "http://gw:8080"], "the node key is required"],
      [["--gateway", "http://gw:8080", "--node-key", "sk-svc_abc"], "must start with nk-svc_"],
      [["--gateway", "http://gw:8080", "--node-key", "nk-svc_abc", "--node-key-file", "/x"], "not both"],
      [["--gateway", "http://gw:8080", "--node-key", "nk-svc_abc", "--listen", "nohost"], "is not HOST:PORT"],
      [["--gateway", "http://gw:8080", "--node-key", "nk-svc_abc", "--listen", "0.0.0.0:8091"], "--advertise URL is required"],
      [["--gateway", "http://gw:8080", "--node-key", "nk-svc_abc", "--capacity", "0"], "--capacity"],
      [["--gateway", "http://gw:8080", "--node-key-file", "/nonexistent/key"], "--node-key-file"],
    ];
    for (const [args, message] of cases) {
      const r = await svc("node", "serve", ...args);
      expect(r.code).toBe(2);
      expect(r.err).toContain(message);
    }
    expect((await svc("node", "--help")).out).toContain("serve");
  } finally {
    if (saved !== undefined) process.env.SVC_NODE_KEY = saved;
  }
});
