/**
 * Snapshots through HTTP on a real runner: archive a session's workspace, list (bare array,
 * newest first, capped), get, start a session from one (its files back, on the same backend),
 * delete, another tenant's ids, and the per-account limit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type SandboxHarness, sandboxHarness, tenant, type Tenant } from "../../support/sandbox-harness.ts";

let h: SandboxHarness;
afterEach(() => h?.close());

const create = (t: Tenant, body: Record<string, unknown> = {}) => h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body });
const exec = (t: Tenant, id: string, command: string) => h.json("POST", `/v1/sandboxes/sessions/${id}/exec`, { headers: t.key, body: { command } });
const snapshot = (t: Tenant, id: string) => h.json("POST", `/v1/sandboxes/sessions/${id}/snapshot`, { headers: t.key });

describe("snapshots", () => {
  test("snapshot, list, get; a new session starts from it with its files; delete", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const s = (await create(t, { language: "bash" })).body;
    await exec(t, s.id, "mkdir -p src && echo 'print(42)' > src/main.py && ln -s src/main.py link");
    const snap = await snapshot(t, s.id);
    expect(snap.status).toBe(201);
    expect(snap.body).toMatchObject({ object: "sandbox.snapshot", session_id: s.id, node_id: null });
    expect(snap.body.id).toMatch(/^snap_/);
    expect(snap.body.bytes).toBeGreaterThan(0);
    h.clock.advance(1000);
    await exec(t, s.id, "echo changed > src/main.py");
    const second = (await snapshot(t, s.id)).body;
    const list = await h.json("GET", "/v1/sandboxes/snapshots", { headers: t.key });
    expect(list.body.map((x: { id: string }) => x.id)).toEqual([second.id, snap.body.id]);
    expect((await h.json("GET", `/v1/sandboxes/snapshots/${snap.body.id}`, { headers: t.key })).body).toEqual(snap.body);

    const restored = await create(t, { snapshot_id: snap.body.id, language: "python" });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({ snapshot_id: snap.body.id, node_id: null });
    const ran = await h.json("POST", `/v1/sandboxes/sessions/${restored.body.id}/exec`, { headers: t.key, body: { code: "exec(open('src/main.py').read())" } });
    expect(ran.body.stdout).toBe("42\n");
    const link = await h.request("GET", `/v1/sandboxes/sessions/${restored.body.id}/files?path=`, { headers: t.key });
    expect(((await link.json()) as { entries: unknown[] }).entries).toContainEqual({ name: "link", type: "symlink", size: 0 });

    const del = await h.json("DELETE", `/v1/sandboxes/snapshots/${snap.body.id}`, { headers: t.key });
    expect(del.body).toEqual({ id: snap.body.id, deleted: true });
    expect((await h.json("GET", `/v1/sandboxes/snapshots/${snap.body.id}`, { headers: t.key })).status).toBe(404);
    expect((await h.json("DELETE", `/v1/sandboxes/snapshots/${snap.body.id}`, { headers: t.key })).status).toBe(404);
    expect((await create(t, { snapshot_id: snap.body.id })).status).toBe(404);
  });

  test("another tenant's snapshot is 404 everywhere, as a snapshot_id too", async () => {
    h = sandboxHarness();
    const owner = tenant(h.ctx);
    const other = tenant(h.ctx);
    const s = (await create(owner)).body;
    const snap = (await snapshot(owner, s.id)).body;
    expect((await h.json("GET", `/v1/sandboxes/snapshots/${snap.id}`, { headers: other.key })).status).toBe(404);
    expect((await h.json("DELETE", `/v1/sandboxes/snapshots/${snap.id}`, { headers: other.key })).status).toBe(404);
    const r = await create(other, { snapshot_id: snap.id });
    expect([r.status, r.body.error.param]).toEqual([404, "snapshot_id"]);
    expect((await h.json("GET", "/v1/sandboxes/snapshots", { headers: other.key })).body).toEqual([]);
    expect((await h.json("GET", `/v1/sandboxes/snapshots/${snap.id}`, { headers: owner.key })).status).toBe(200);
  });

  test("an account keeps at most max_snapshots_per_account; the list is capped at 100", async () => {
    h = sandboxHarness({ config: (c) => (c.sandboxes.max_snapshots_per_account = 1) });
    const t = tenant(h.ctx);
    const s = (await create(t)).body;
    expect((await snapshot(t, s.id)).status).toBe(201);
    const second = await snapshot(t, s.id);
    expect([second.status, second.body.error.type]).toEqual([409, "snapshot_limit_reached"]);
    const insert = h.ctx.db.prepare("INSERT INTO sandbox_snapshots (id, account_id, session_id, node_id, bytes, created_at) VALUES (?, ?, ?, NULL, 1, ?)");
    for (let i = 0; i < 120; i++) insert.run(`snap_fill${i}`, t.accountId, s.id, i);
    const list = (await h.json("GET", "/v1/sandboxes/snapshots", { headers: t.key })).body;
    expect(list.length).toBe(100);
    expect(list[1].id).toBe("snap_fill119");
  });
});
