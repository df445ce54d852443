/**
 * Sandbox sessions through HTTP on a real runner: create, list, get, stop (idempotent), execs
 * (command, argv, code; receipts per exec; stream), files (persist between execs, the 8 MiB
 * boundary, traversal and symlinks refused), processes not persisting, another tenant's ids,
 * and every stop as a job or an event — idle and lifetime by moving the clock, alive time
 * billed in periods until the account runs dry — each firing sandbox_session_stopped.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Hex, recoverMessageAddress } from "viem";
import { registerJobs } from "../../../src/jobs.ts";
import { receiptPayload, type SandboxHarness, sandboxHarness, sseEvents, tenant, type Tenant } from "../../support/sandbox-harness.ts";

let h: SandboxHarness;
afterEach(() => h?.close());

const MiB = 1024 * 1024;
const create = (t: Tenant, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  h.json("POST", "/v1/sandboxes/sessions", { headers: { ...t.key, ...headers }, body });
const exec = (t: Tenant, id: string, body: Record<string, unknown>) => h.json("POST", `/v1/sandboxes/sessions/${id}/exec`, { headers: t.key, body });
const get = (t: Tenant, id: string) => h.json("GET", `/v1/sandboxes/sessions/${id}`, { headers: t.key });
/** Through the harness's OpenAPI check, at any depth (the document's files/{path}). */
const fileRequest = (method: string, id: string, file: string, headers: Record<string, string>, body?: RequestInit["body"]) =>
  h.request(method, `/v1/sandboxes/sessions/${id}/files/${file}`, { headers, ...(body !== undefined ? { raw: body as any } : {}) });
const put = (t: Tenant, id: string, file: string, body: RequestInit["body"]) => fileRequest("PUT", id, file, { ...t.key, "content-type": "application/octet-stream" }, body);
const read = (t: Tenant, id: string, file: string) => fileRequest("GET", id, file, t.key);
const listing = async (t: Tenant, id: string, query = "") => {
  const res = await h.request("GET", `/v1/sandboxes/sessions/${id}/files${query}`, { headers: t.key });
  return { status: res.status, body: (await res.json()) as any };
};
const stopped = () => h.ctx.outbox.since(0).filter((e) => e.type === "sandbox_session_stopped").map((e) => e.payload);

async function until(check: () => boolean, ms = 3000): Promise<void> {
  for (const t0 = Date.now(); !check(); ) {
    if (Date.now() - t0 > ms) throw new Error("timed out waiting");
    await Bun.sleep(10);
  }
}

describe("sessions", () => {
  test("create, get, list newest first; DELETE stops it (idempotent) with its event, removes its workspace, and later commands are 409", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const a = await create(t, { language: "python", idle_timeout_s: 120, max_lifetime_s: 600 });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ object: "sandbox.session", status: "live", stop_reason: null, language: "python", node_id: null, idle_timeout_s: 120, max_lifetime_s: 600, exec_count: 0, cost_micro_usd: 0 });
    expect(a.body.id).toMatch(/^sbs_/);
    h.clock.advance(5000);
    const b = await create(t);
    expect(b.body).toMatchObject({ idle_timeout_s: 600, max_lifetime_s: 3600, language: null });
    const list = await h.json("GET", "/v1/sandboxes/sessions", { headers: t.key });
    expect(list.body.map((s: { id: string }) => s.id)).toEqual([b.body.id, a.body.id]);
    expect((await get(t, a.body.id)).body.alive_seconds).toBe(5);

    const ws = join(h.ctx.config.sandboxes.dir, "workspaces", h.ctx.db.query<{ w: string }, [string]>("SELECT workspace_ref AS w FROM sandbox_sessions WHERE id = ?").get(a.body.id)!.w);
    expect(existsSync(ws)).toBe(true);
    const del = await h.json("DELETE", `/v1/sandboxes/sessions/${a.body.id}`, { headers: t.key });
    expect(del.body).toMatchObject({ status: "stopped", stop_reason: "requested", stopped_at: expect.any(String) });
    const again = await h.json("DELETE", `/v1/sandboxes/sessions/${a.body.id}`, { headers: t.key });
    expect([again.status, again.body.stop_reason]).toEqual([200, "requested"]);
    expect(stopped()).toEqual([{ session_id: a.body.id, reason: "requested" }]);
    await until(() => !existsSync(ws));

    const late = await exec(t, a.body.id, { command: "true" });
    expect([late.status, late.body.error.type]).toEqual([409, "session_stopped"]);
    expect((await put(t, a.body.id, "x", "x")).status).toBe(409);
    expect((await listing(t, a.body.id)).status).toBe(409);
    expect((await h.json("POST", `/v1/sandboxes/sessions/${a.body.id}/snapshot`, { headers: t.key })).status).toBe(409);
  });

  test("another tenant's session is 404 on every route; unknown ids too", async () => {
    h = sandboxHarness();
    const owner = tenant(h.ctx);
    const other = tenant(h.ctx);
    const s = (await create(owner)).body;
    for (const id of [s.id, "sbs_nope"]) {
      expect((await get(other, id)).status).toBe(404);
      expect((await h.json("DELETE", `/v1/sandboxes/sessions/${id}`, { headers: other.key })).status).toBe(404);
      expect((await exec(other, id, { command: "true" })).status).toBe(404);
      expect((await listing(other, id)).status).toBe(404);
      expect((await h.json("POST", `/v1/sandboxes/sessions/${id}/snapshot`, { headers: other.key })).status).toBe(404);
      expect((await read(other, id, "a")).status).toBe(404);
      expect((await put(other, id, "a", "x")).status).toBe(404);
    }
    expect((await h.json("GET", "/v1/sandboxes/sessions", { headers: other.key })).body).toEqual([]);
    expect((await get(owner, s.id)).body.status).toBe("live");
  });

  test("bad input: timeouts above the deployment's maximum, unknown fields, an unknown snapshot; the per-account limit", async () => {
    h = sandboxHarness({ config: (c) => (c.sandboxes.max_sessions_per_account = 2) });
    const t = tenant(h.ctx);
    expect((await create(t, { idle_timeout_s: 86_401 })).body.error.param).toBe("idle_timeout_s");
    expect((await create(t, { max_lifetime_s: 86_401 })).body.error.param).toBe("max_lifetime_s");
    expect((await create(t, { idle_timeout_s: 5 })).body.error.param).toBe("idle_timeout_s");
    expect((await create(t, { language: "cobol" })).body.error.param).toBe("language");
    expect((await create(t, { size: "xl" })).body.error.param).toBe("size");
    const snap = await create(t, { snapshot_id: "snap_missing" });
    expect([snap.status, snap.body.error.param]).toEqual([404, "snapshot_id"]);
    expect((await create(t)).status).toBe(201);
    expect((await create(t)).status).toBe(201);
    const third = await create(t);
    expect([third.status, third.body.error.type]).toEqual([409, "session_limit_reached"]);
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(1200); // two sessions' first periods, nothing for the refused one
  });

  test("Idempotency-Key on create answers the first session again", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const first = await create(t, { language: "bash" }, { "idempotency-key": "s-1" });
    const again = await create(t, { language: "bash" }, { "idempotency-key": "s-1" });
    expect([again.status, again.body.id, again.headers.get("idempotent-replayed")]).toEqual([201, first.body.id, "true"]);
    expect((await h.json("GET", "/v1/sandboxes/sessions", { headers: t.key })).body.length).toBe(1);
    expect((await create(t, { language: "python" }, { "idempotency-key": "s-1" })).status).toBe(422);
  });
});

describe("execs", () => {
  test("command string, argv and code each run over the session's workspace; files persist, processes do not; a signed receipt per exec", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t, { language: "python", svc_run_id: "run-s" })).body;
    const one = await exec(t, s.id, { command: "echo persisted > note.txt; (sleep 30 &) ; echo started" });
    expect(one.body).toMatchObject({ status: "ok", stdout: "started\n", session_id: s.id, run_id: "run-s" });
    const two = await exec(t, s.id, { command: ["cat", "note.txt"] });
    expect(two.body.stdout).toBe("persisted\n");
    const three = await exec(t, s.id, { code: "import os\nprint(sorted(os.listdir('.')))\nprint([open(f'/proc/{p}/comm').read().strip() for p in os.listdir('/proc') if p.isdigit()])", svc_run_id: "other-run" });
    expect(three.body.stdout.split("\n")[0]).toBe("['note.txt']");
    expect(three.body.stdout).not.toContain("sleep");
    expect(three.body.run_id).toBe("other-run");
    const js = await exec(t, s.id, { code: "console.log(require('fs').readFileSync('note.txt', 'utf8').trim())", language: "javascript" });
    expect(js.body.stdout).toBe("persisted\n");

    const pub = (await h.json("GET", "/v1/receipts/pubkey")).body.address;
    for (const r of [one, two, three, js]) {
      expect(r.status).toBe(200);
      expect(await recoverMessageAddress({ message: r.body.receipt.receipt, signature: r.body.receipt.signature as Hex })).toBe(pub);
      expect(receiptPayload(r.body.receipt.receipt)).toMatchObject({ kind: "sandbox", units: { session_id: s.id, sandbox_run_id: r.body.id } });
      expect(r.headers.get("x-svc-receipt-id")).toBe(r.body.receipt.id);
    }
    const view = (await get(t, s.id)).body;
    expect(view.exec_count).toBe(4);
    expect(view.exec_cost_micro_usd).toBe([one, two, three, js].reduce((n, r) => n + r.body.cost_micro_usd, 0));
  });

  test("exec bad input: both or neither of command and code, code without a language, args with a command", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    expect((await exec(t, s.id, {})).body.error.param).toBe("code");
    expect((await exec(t, s.id, { command: "ls", code: "x" })).body.error.param).toBe("command");
    expect((await exec(t, s.id, { code: "print(1)" })).body.error.param).toBe("language");
    expect((await exec(t, s.id, { command: "ls", args: ["-l"] })).body.error.param).toBe("args");
    expect((await exec(t, s.id, { command: [] })).body.error.param).toBe("command");
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(600); // the alive period only
  });

  test("Idempotency-Key on exec: a repeat is its first result, billed once, even after the session stopped", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    const send = () => h.json("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: { ...t.key, "idempotency-key": "e-1" }, body: { command: "echo $RANDOM >> log; wc -l < log" } });
    const first = await send();
    expect(first.body.stdout).toBe("1\n");
    const again = await send();
    expect([again.body.id, again.body.stdout, again.headers.get("idempotent-replayed")]).toEqual([first.body.id, "1\n", "true"]);
    await h.json("DELETE", `/v1/sandboxes/sessions/${s.id}`, { headers: t.key });
    expect((await send()).body.id).toBe(first.body.id);
    expect((await get(t, s.id)).body.exec_count).toBe(1);
    // The key is bound to its session: another session's exec with it is another request.
    const other = (await create(t)).body;
    const elsewhere = await h.json("POST", `/v1/sandboxes/sessions/${other.id}/exec`, { headers: { ...t.key, "idempotency-key": "e-1" }, body: { command: "echo $RANDOM >> log; wc -l < log" } });
    expect([elsewhere.status, elsewhere.body.error.type]).toEqual([422, "idempotency_key_reused"]);
  });

  test("stream: true on exec answers SSE with the exit event and its receipt", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t, { language: "bash" })).body;
    const res = await h.request("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: t.key, body: { code: "for i in 1 2 3; do echo $i; done", stream: true } });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const events = sseEvents(await res.text());
    expect(events.filter((e) => e.event === "stdout").map((e) => e.data.data).join("")).toBe("1\n2\n3\n");
    expect(events.at(-1)!).toMatchObject({ event: "exit", data: { session_id: s.id, status: "ok", exit_code: 0 } });
    expect(events.at(-1)!.data.receipt.id).toMatch(/^rcpt_/);
  });

  test("a stop kills the execs in flight, which are billed for the time they ran", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    const running = exec(t, s.id, { command: "sleep 20", timeout_ms: 30_000 });
    await until(() => h.ctx.sandboxes.busy(s.id));
    await Bun.sleep(100);
    await h.json("DELETE", `/v1/sandboxes/sessions/${s.id}`, { headers: t.key });
    const r = await running;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "killed", killed_reason: "aborted" });
    expect(r.body.duration_ms).toBeLessThan(5000);
    expect(receiptPayload(r.body.receipt.receipt).status).toBe("session_stopped");
  });
});

describe("files", () => {
  test("PUT then GET raw bytes and list; exactly 8 MiB is accepted, one byte more is 413", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    const bytes = new Uint8Array([0, 1, 2, 254, 255]);
    const w = await put(t, s.id, "dir/sub/data.bin", bytes);
    expect([w.status, (await w.json()) as any]).toEqual([200, { path: "dir/sub/data.bin", bytes: 5 }]);
    const r = await read(t, s.id, "dir/sub/data.bin");
    expect(r.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(bytes);
    expect((await read(t, s.id, "dir%2Fsub%2Fdata.bin")).status).toBe(200);
    const list = await listing(t, s.id, "?path=dir");
    expect(list.body).toEqual({ path: "dir", entries: [{ name: "sub", type: "directory", size: 0 }] });
    const top = await listing(t, s.id);
    expect(top.body.entries.map((e: { name: string }) => e.name)).toEqual(["dir"]);
    // An exec sees it.
    expect((await exec(t, s.id, { command: "od -An -tu1 dir/sub/data.bin" })).body.stdout.trim().split(/\s+/)).toEqual(["0", "1", "2", "254", "255"]);

    const exact = await put(t, s.id, "big.bin", new Uint8Array(8 * MiB).fill(7));
    expect([exact.status, ((await exact.json()) as any).bytes]).toEqual([200, 8 * MiB]);
    expect((await (await read(t, s.id, "big.bin")).arrayBuffer()).byteLength).toBe(8 * MiB);
    const over = await put(t, s.id, "bigger.bin", new Uint8Array(8 * MiB + 1));
    const body = (await over.json()) as any;
    expect([over.status, body.error.type, body.error.limit_bytes]).toEqual([413, "payload_too_large", 8 * MiB]);
    expect(body.error.message).toContain("8 MiB");
    expect((await read(t, s.id, "bigger.bin")).status).toBe(404);
    const missing = await read(t, s.id, "nope.txt");
    expect([missing.status, ((await missing.json()) as any).error.type]).toEqual([404, "not_found"]);
  });

  test("path traversal is refused; a symlink made in the sandbox pointing outside is never followed by the files API", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    for (const path of ["..%2F..%2Fetc%2Fpasswd", "a%2F..%2F..%2Fsvc.db", "%2Fetc%2Fpasswd", "%00x", "%E0%A4%A"]) {
      const r = await read(t, s.id, path);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error.type).toBe("invalid_path");
      expect((await put(t, s.id, path, "x")).status).toBe(400);
    }
    expect((await listing(t, s.id, "?path=..")).status).toBe(400);

    const dataDb = join(h.dir, "svc.db");
    const made = await exec(t, s.id, { command: `ln -s /etc/shadow shadow && ln -s / root && ln -s ${dataDb} db && mkdir d && ln -s /etc d/etc && echo ok` });
    expect(made.body.stdout).toBe("ok\n");
    for (const path of ["shadow", "root/etc/passwd", "db", "d/etc/passwd", "d/etc"]) {
      const r = await read(t, s.id, path);
      expect(r.status).toBe(400);
      const err = ((await r.json()) as any).error;
      expect(err.type).toBe("invalid_path");
      expect(err.message).toContain("symlink");
    }
    // Writing through a link is refused too, and nothing outside changed.
    expect((await put(t, s.id, "shadow", "pwned")).status).toBe(400);
    expect((await put(t, s.id, "root/tmp/pwned", "x")).status).toBe(400);
    expect(existsSync("/tmp/pwned")).toBe(false);
    const list = await listing(t, s.id);
    expect(list.body.entries.find((e: { name: string }) => e.name === "root")).toEqual({ name: "root", type: "symlink", size: 0 });
    expect((await listing(t, s.id, "?path=root")).status).toBe(400);
  });
});

describe("stops by rule", () => {
  test("idle_timeout: moving the clock past the idle timeout stops it at the moment it fell idle; an exec resets the timer", async () => {
    h = sandboxHarness();
    registerJobs(h.ctx);
    const t = tenant(h.ctx);
    const s = (await create(t, { idle_timeout_s: 60 })).body;
    h.clock.advance(40_000);
    await exec(t, s.id, { command: "true" });
    h.clock.advance(40_000); // 80 s since creation, 40 s since the exec
    await h.ctx.scheduler.runDue();
    expect((await get(t, s.id)).body.status).toBe("live");
    h.clock.advance(21_000);
    await h.ctx.scheduler.runDue();
    const v = (await get(t, s.id)).body;
    expect(v).toMatchObject({ status: "stopped", stop_reason: "idle_timeout", stopped_at: new Date(Date.UTC(2026, 10, 21, 12, 1, 40)).toISOString() });
    expect(v.alive_seconds).toBe(100);
    expect(stopped()).toEqual([{ session_id: s.id, reason: "idle_timeout" }]);
    expect((await exec(t, s.id, { command: "true" })).status).toBe(409);
    // Alive time: 100 s at 10 µ$/s, nothing still held.
    expect(v.alive_cost_micro_usd).toBe(1000);
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(0);
  });

  test("max_lifetime: the session stops at its lifetime, billed for exactly that long in periods (one receipt each)", async () => {
    h = sandboxHarness();
    registerJobs(h.ctx);
    const t = tenant(h.ctx);
    const before = h.ctx.ledger.balance(t.accountId).balance_micro_usd;
    const s = (await create(t, { idle_timeout_s: 3600, max_lifetime_s: 150 })).body;
    for (let i = 0; i < 4; i++) {
      h.clock.advance(60_000);
      await h.ctx.scheduler.runDue();
    }
    const v = (await get(t, s.id)).body;
    expect(v).toMatchObject({ status: "stopped", stop_reason: "max_lifetime", alive_seconds: 150, alive_cost_micro_usd: 1500, cost_micro_usd: 1500 });
    expect(stopped()).toEqual([{ session_id: s.id, reason: "max_lifetime" }]);
    const b = h.ctx.ledger.balance(t.accountId);
    expect([b.balance_micro_usd, b.held_micro_usd]).toEqual([before - 1500, 0]);
    const minted = h.ctx.outbox.since(0).filter((e) => e.type === "receipt_minted" && e.payload.kind === "sandbox_session");
    expect(minted.map((e) => e.payload.cost_micro_usd)).toEqual([600, 600, 300]);
  });

  test("insufficient_credit: a session whose account cannot pay for its next period stops, having paid for every second", async () => {
    h = sandboxHarness();
    registerJobs(h.ctx);
    const t = tenant(h.ctx, 0.0015); // 1500 µ$: two periods of 600, not a third
    const s = (await create(t, { idle_timeout_s: 3600 })).body;
    for (let i = 0; i < 3; i++) {
      h.clock.advance(60_000);
      await h.ctx.scheduler.runDue();
    }
    const v = (await get(t, s.id)).body;
    expect(v).toMatchObject({ status: "stopped", stop_reason: "insufficient_credit", alive_seconds: 120, alive_cost_micro_usd: 1200 });
    expect(stopped()).toEqual([{ session_id: s.id, reason: "insufficient_credit" }]);
    const b = h.ctx.ledger.balance(t.accountId);
    expect([b.balance_micro_usd, b.held_micro_usd]).toEqual([300, 0]);
  });

  test("a session cannot be created without credit for its first period", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx, 0.0005);
    const r = await create(t);
    expect([r.status, r.body.error.type]).toEqual([402, "insufficient_credit"]);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_sessions").get()).toEqual({ n: 0 });
  });
});
