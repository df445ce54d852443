import { afterEach, describe, expect, test } from "bun:test";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { orgRole, requireActingRole, requireOrgRole } from "../../../src/domains/orgs/service.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Who = { id: string; auth: Record<string, string> };

function person(): Who {
  const { account, session } = accountWithSession(h.ctx);
  return { id: account.id, auth: bearer(session.token) };
}

const randomWallet = () => "0x" + Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString("hex");

const call = (who: Who, method: string, path: string, body?: unknown) => h.json(method, path, { headers: who.auth, body });

async function newOrg(owner: Who, name = "Acme Agents"): Promise<string> {
  const r = await call(owner, "POST", "/v1/orgs", { name });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** Makes `who` a member of `orgId` with `role` through a link invite from `owner`. */
async function join(owner: Who, orgId: string, who: Who, role: "member" | "admin" | "owner" = "member") {
  const inv = await call(owner, "POST", `/v1/orgs/${orgId}/invites`, { role });
  expect(inv.status).toBe(201);
  const r = await call(who, "POST", "/v1/orgs/invites/accept", { token: inv.body.token });
  expect(r.status).toBe(200);
}

const DAY = 86_400_000;

describe("orgs", () => {
  test("create, list (bare array with the caller's role), get, rename", async () => {
    h = makeHarness();
    const alice = person();
    const created = await call(alice, "POST", "/v1/orgs", { name: "  Acme Agents  " });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Acme Agents", role: "owner", member_count: 1 });
    expect(created.body.id).toMatch(/^org_[a-z2-7]{24}$/);
    expect(created.body.created_at).toBe(new Date(h.clock.now()).toISOString());

    const list = await call(alice, "GET", "/v1/orgs");
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body).toEqual([created.body]);

    const got = await call(alice, "GET", `/v1/orgs/${created.body.id}`);
    expect(got.body).toEqual(created.body);

    h.clock.advance(1000);
    const renamed = await call(alice, "PATCH", `/v1/orgs/${created.body.id}`, { name: "Acme Labs" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Acme Labs", created_at: created.body.created_at, updated_at: new Date(h.clock.now()).toISOString() });

    // Someone else sees none of it.
    const bob = person();
    expect((await call(bob, "GET", "/v1/orgs")).body).toEqual([]);
  });

  test("names: trimmed, 1-100 characters, no control characters", async () => {
    h = makeHarness();
    const alice = person();
    for (const [name, param] of [["   ", "name"], ["", "name"], ["x".repeat(101), "name"], ["a\nb", "name"], [42, "name"]] as const) {
      const r = await call(alice, "POST", "/v1/orgs", { name });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect((await call(alice, "POST", "/v1/orgs", { name: "x".repeat(100) })).status).toBe(201);
    expect((await call(alice, "POST", "/v1/orgs", {})).body.error.param).toBe("name");
  });

  test("closed bodies refuse unknown fields, naming them", async () => {
    h = makeHarness();
    const alice = person();
    const org = await newOrg(alice);
    const cases: [string, string, unknown][] = [
      ["POST", "/v1/orgs", { name: "A", plan: "pro" }],
      ["PATCH", `/v1/orgs/${org}`, { name: "A", plan: "pro" }],
      ["POST", `/v1/orgs/${org}/invites`, { role: "member", plan: "pro" }],
      ["PATCH", `/v1/orgs/${org}/members/${alice.id}`, { role: "member", plan: "pro" }],
      ["POST", "/v1/orgs/invites/accept", { token: "inv_x", plan: "pro" }],
    ];
    for (const [method, path, body] of cases) {
      const r = await call(alice, method, path, body);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: "invalid_request", param: "plan", message: "plan: is not an accepted field" });
    }
  });

  test("every route needs a session", async () => {
    h = makeHarness();
    const alice = person();
    const org = await newOrg(alice);
    for (const [method, path] of [
      ["GET", "/v1/orgs"],
      ["POST", "/v1/orgs"],
      ["GET", `/v1/orgs/${org}`],
      ["GET", `/v1/orgs/${org}/members`],
      ["GET", `/v1/orgs/${org}/invites`],
      ["GET", "/v1/orgs/invites/mine"],
      ["POST", "/v1/orgs/invites/accept"],
    ]) {
      const r = await h.json(method!, path!, { body: method === "POST" ? { bogus: 1 } : undefined });
      expect(r.status).toBe(401);
    }
  });

  test("a non-member gets the same 404 as for an unknown org, on every org route", async () => {
    h = makeHarness();
    const alice = person();
    const mallory = person();
    const org = await newOrg(alice);
    const inv = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    const routes = (id: string): [string, string, unknown?][] => [
      ["GET", `/v1/orgs/${id}`],
      ["PATCH", `/v1/orgs/${id}`, { name: "Mine now" }],
      ["DELETE", `/v1/orgs/${id}`],
      ["POST", `/v1/orgs/${id}/leave`],
      ["GET", `/v1/orgs/${id}/members`],
      ["PATCH", `/v1/orgs/${id}/members/${alice.id}`, { role: "member" }],
      ["DELETE", `/v1/orgs/${id}/members/${alice.id}`],
      ["GET", `/v1/orgs/${id}/invites`],
      ["POST", `/v1/orgs/${id}/invites`, { role: "member" }],
      ["DELETE", `/v1/orgs/${id}/invites/${inv.body.id}`],
    ];
    const hidden = routes(org);
    const unknown = routes("org_aaaaaaaaaaaaaaaaaaaaaaaa");
    for (let i = 0; i < hidden.length; i++) {
      const [method, path, body] = hidden[i]!;
      const a = await call(mallory, method, path, body);
      const b = await call(mallory, method, unknown[i]![1], body);
      expect(a.status).toBe(404);
      expect(a.body).toEqual(b.body);
    }
    // Nothing changed.
    expect((await call(alice, "GET", `/v1/orgs/${org}`)).body.name).toBe("Acme Agents");
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body.length).toBe(1);
  });

  test("DELETE: owner only, refused while others are members, then removes members and invites", async () => {
    h = makeHarness();
    const alice = person();
    const bob = person();
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    const del = await call(bob, "DELETE", `/v1/orgs/${org}`);
    expect(del.status).toBe(403);
    expect(del.body.error).toMatchObject({ type: "insufficient_role", required_role: "owner", role: "admin" });
    const busy = await call(alice, "DELETE", `/v1/orgs/${org}`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.type).toBe("org_not_empty");
    expect((await call(alice, "DELETE", `/v1/orgs/${org}/members/${bob.id}`)).status).toBe(200);
    await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    const ok = await call(alice, "DELETE", `/v1/orgs/${org}`);
    expect(ok.body).toEqual({ id: org, deleted: true });
    expect((await call(alice, "GET", `/v1/orgs/${org}`)).status).toBe(404);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM org_invites WHERE org_id = ?").get(org)).toEqual({ n: 0 });
    expect(h.ctx.db.query("SELECT count(*) AS n FROM org_members WHERE org_id = ?").get(org)).toEqual({ n: 0 });
  });

  test("literal /v1/orgs/invites/… routes win over /v1/orgs/:id templates", async () => {
    h = makeHarness();
    const alice = person();
    expect((await call(alice, "GET", "/v1/orgs/invites/mine")).body).toEqual([]);
    const accept = await call(alice, "POST", "/v1/orgs/invites/accept", { token: "inv_nope" });
    expect(accept.status).toBe(404);
    expect(accept.body.error.message).toBe("invite not found");
    const byId = await call(alice, "POST", "/v1/orgs/invites/inv_aaaaaaaaaaaaaaaaaaaaaaaa/accept");
    expect(byId.body.error.message).toBe("invite not found");
    // "invites" is not taken for an org id.
    expect((await call(alice, "GET", "/v1/orgs/invites")).body.error.message).toBe("organization not found");
    const paths = Object.keys((await h.json("GET", "/openapi.json")).body.paths);
    for (const p of ["/v1/orgs", "/v1/orgs/{id}", "/v1/orgs/invites/mine", "/v1/orgs/invites/accept", "/v1/orgs/invites/{invite_id}/accept", "/v1/orgs/{id}/members/{account_id}"]) {
      expect(paths).toContain(p);
    }
  });
});

describe("members", () => {
  test("list: bare array of account_id, role, checksummed first wallet or null, joined_at", async () => {
    h = makeHarness();
    const alice = person();
    const bob = person();
    const w1 = randomWallet();
    addWallet(h.ctx, alice.id, w1);
    h.clock.advance(1000);
    addWallet(h.ctx, alice.id, randomWallet());
    const org = await newOrg(alice);
    h.clock.advance(1000);
    await join(alice, org, bob);
    const r = await call(bob, "GET", `/v1/orgs/${org}/members`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { account_id: alice.id, role: "owner", wallet: toChecksumAddress(w1), joined_at: new Date(h.clock.now() - 1000).toISOString() },
      { account_id: bob.id, role: "member", wallet: null, joined_at: new Date(h.clock.now()).toISOString() },
    ]);
    expect((await call(alice, "GET", `/v1/orgs/${org}`)).body.member_count).toBe(2);
  });

  test("role changes: admins manage up to admin; only owners grant or take away owner; not your own", async () => {
    h = makeHarness();
    const [alice, bob, carol, dave] = [person(), person(), person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    await join(alice, org, carol);
    await join(alice, org, dave);
    const patch = (who: Who, target: Who, role: string) => call(who, "PATCH", `/v1/orgs/${org}/members/${target.id}`, { role });

    // A member manages nobody.
    const m = await patch(carol, dave, "admin");
    expect(m.status).toBe(403);
    expect(m.body.error).toMatchObject({ type: "insufficient_role", required_role: "admin", role: "member" });
    // An admin promotes a member to admin and back, but cannot grant owner or touch an owner.
    expect((await patch(bob, carol, "admin")).body).toMatchObject({ account_id: carol.id, role: "admin" });
    expect((await patch(bob, carol, "member")).body.role).toBe("member");
    const grant = await patch(bob, carol, "owner");
    expect(grant.status).toBe(403);
    expect(grant.body.error).toMatchObject({ type: "insufficient_role", required_role: "owner" });
    expect((await patch(bob, alice, "member")).body.error.required_role).toBe("owner");
    // Nobody changes their own role.
    const self = await patch(bob, bob, "owner");
    expect(self.status).toBe(403);
    expect(self.body.error.type).toBe("cannot_change_own_role");
    expect((await patch(alice, alice, "admin")).body.error.type).toBe("cannot_change_own_role");
    // An owner grants owner, and takes it away again.
    expect((await patch(alice, carol, "owner")).body.role).toBe("owner");
    expect((await patch(carol, alice, "admin")).body.role).toBe("admin");
    expect(orgRole(h.ctx, org, alice.id)).toBe("admin");
    // Unknown member, invalid role.
    expect((await call(carol, "PATCH", `/v1/orgs/${org}/members/acct_nobody`, { role: "member" })).status).toBe(404);
    const bad = await patch(carol, dave, "superuser");
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("role");
  });

  test("removal: admins remove members and admins, not owners; removing yourself is leaving", async () => {
    h = makeHarness();
    const [alice, bob, carol, dave] = [person(), person(), person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    await join(alice, org, carol, "admin");
    await join(alice, org, dave);
    const remove = (who: Who, target: Who) => call(who, "DELETE", `/v1/orgs/${org}/members/${target.id}`);
    expect((await remove(dave, carol)).body.error).toMatchObject({ type: "insufficient_role", required_role: "admin" });
    expect((await remove(bob, alice)).body.error).toMatchObject({ type: "insufficient_role", required_role: "owner" });
    expect((await remove(bob, carol)).body).toEqual({ org_id: org, account_id: carol.id, removed: true });
    expect((await remove(bob, dave)).status).toBe(200);
    expect((await remove(bob, dave)).status).toBe(404);
    expect((await call(dave, "GET", `/v1/orgs/${org}`)).status).toBe(404);
    expect((await remove(bob, bob)).status).toBe(200);
    expect((await call(alice, "GET", `/v1/orgs/${org}/members`)).body.map((m: { account_id: string }) => m.account_id)).toEqual([alice.id]);
  });

  test("the last owner can be neither demoted, removed, nor leave", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    const leave = await call(alice, "POST", `/v1/orgs/${org}/leave`);
    expect(leave.status).toBe(409);
    expect(leave.body.error.type).toBe("last_owner");
    expect((await call(alice, "DELETE", `/v1/orgs/${org}/members/${alice.id}`)).body.error.type).toBe("last_owner");
    expect((await call(alice, "PATCH", `/v1/orgs/${org}/members/${alice.id}`, { role: "admin" })).status).toBe(403);
    expect((await call(bob, "PATCH", `/v1/orgs/${org}/members/${alice.id}`, { role: "admin" })).status).toBe(403);
    expect((await call(bob, "DELETE", `/v1/orgs/${org}/members/${alice.id}`)).status).toBe(403);
    expect(orgRole(h.ctx, org, alice.id)).toBe("owner");
    // With a second owner, the first may go.
    await call(alice, "PATCH", `/v1/orgs/${org}/members/${bob.id}`, { role: "owner" });
    expect((await call(alice, "POST", `/v1/orgs/${org}/leave`)).body).toEqual({ org_id: org, left: true });
    expect((await call(bob, "GET", `/v1/orgs/${org}`)).body).toMatchObject({ role: "owner", member_count: 1 });
    // The sole member and owner cannot leave either: they delete the org instead.
    expect((await call(bob, "POST", `/v1/orgs/${org}/leave`)).body.error.type).toBe("last_owner");
  });

  test("losing standing revokes the invites one made beyond it", async () => {
    h = makeHarness();
    const [alice, bob, carol] = [person(), person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "owner");
    await call(bob, "POST", `/v1/orgs/${org}/invites`, { role: "owner" });
    await call(bob, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    const token = (await call(bob, "POST", `/v1/orgs/${org}/invites`, { role: "admin" })).body.token;
    // Demoted to admin: the owner invite goes, the others stay.
    await call(alice, "PATCH", `/v1/orgs/${org}/members/${bob.id}`, { role: "admin" });
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body.map((i: { role: string }) => i.role)).toEqual(["admin", "member"]);
    // Removed: the rest go too.
    await call(alice, "DELETE", `/v1/orgs/${org}/members/${bob.id}`);
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body).toEqual([]);
    expect((await call(carol, "POST", "/v1/orgs/invites/accept", { token })).status).toBe(404);
  });
});

describe("link invites", () => {
  test("create (token once, sha256 only at rest) → accept → member; the same link again → 404", async () => {
    h = makeHarness();
    const [alice, bob, carol] = [person(), person(), person()];
    const org = await newOrg(alice);
    const inv = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "admin" });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({ org_id: org, kind: "link", role: "admin", wallet_address: null, created_by: alice.id });
    expect(inv.body.id).toMatch(/^inv_[a-z2-7]{24}$/);
    expect(inv.body.token).toMatch(/^inv_[A-Za-z0-9_-]{43}$/);
    expect(inv.body.expires_at).toBe(new Date(h.clock.now() + 7 * DAY).toISOString());
    const stored = h.ctx.db.query<{ token_sha256: string }, [string]>("SELECT token_sha256 FROM org_invites WHERE id = ?").get(inv.body.id)!;
    expect(stored.token_sha256).toBe(sha256Hex(inv.body.token));

    const listed = await call(alice, "GET", `/v1/orgs/${org}/invites`);
    expect(Array.isArray(listed.body)).toBe(true);
    const { token: _shownOnce, ...withoutToken } = inv.body;
    expect(listed.body).toEqual([withoutToken]);

    const ok = await call(bob, "POST", "/v1/orgs/invites/accept", { token: inv.body.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: org, role: "admin", member_count: 2 });
    expect(orgRole(h.ctx, org, bob.id)).toBe("admin");
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body).toEqual([]);

    const unknown = await call(carol, "POST", "/v1/orgs/invites/accept", { token: "inv_unknown" });
    for (const who of [carol, bob]) {
      const again = await call(who, "POST", "/v1/orgs/invites/accept", { token: inv.body.token });
      expect(again.status).toBe(404);
      expect(again.body).toEqual(unknown.body);
    }
    expect(orgRole(h.ctx, org, carol.id)).toBeNull();
  });

  test("expired and revoked links answer the same 404 as unknown ones", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const org = await newOrg(alice);
    const unknown = await call(bob, "POST", "/v1/orgs/invites/accept", { token: "inv_unknown" });

    const short = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", expires_in_secs: 3600 });
    expect(short.body.expires_at).toBe(new Date(h.clock.now() + 3_600_000).toISOString());
    const revoked = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    const del = await call(alice, "DELETE", `/v1/orgs/${org}/invites/${revoked.body.id}`);
    expect(del.body).toEqual({ id: revoked.body.id, revoked: true });
    expect((await call(alice, "DELETE", `/v1/orgs/${org}/invites/${revoked.body.id}`)).status).toBe(404);

    h.clock.advance(3_600_000);
    for (const token of [short.body.token, revoked.body.token]) {
      const r = await call(bob, "POST", "/v1/orgs/invites/accept", { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual(unknown.body);
    }
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body).toEqual([]);
    expect(orgRole(h.ctx, org, bob.id)).toBeNull();
  });

  test("a link presented by a member answers 409 already_member and stays usable", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const org = await newOrg(alice);
    const inv = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "admin" });
    const mine = await call(alice, "POST", "/v1/orgs/invites/accept", { token: inv.body.token });
    expect(mine.status).toBe(409);
    expect(mine.body.error.type).toBe("already_member");
    expect(orgRole(h.ctx, org, alice.id)).toBe("owner");
    expect((await call(bob, "POST", "/v1/orgs/invites/accept", { token: inv.body.token })).status).toBe(200);
  });

  test("eight accounts presenting one link at once: exactly one joins", async () => {
    h = makeHarness();
    const alice = person();
    const racers = Array.from({ length: 8 }, person);
    const org = await newOrg(alice);
    const { token } = (await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" })).body;
    const results = await Promise.all(racers.map((who) => call(who, "POST", "/v1/orgs/invites/accept", { token })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    expect((await call(alice, "GET", `/v1/orgs/${org}`)).body.member_count).toBe(2);
  });

  test("expires_in_secs is bounded", async () => {
    h = makeHarness();
    const alice = person();
    const org = await newOrg(alice);
    for (const expires_in_secs of [0, 299, 30 * 86_400 + 1, 1.5, "3600"]) {
      const r = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", expires_in_secs });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("expires_in_secs");
    }
    expect((await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", expires_in_secs: 30 * 86_400 })).status).toBe(201);
  });
});

describe("wallet invites", () => {
  test("only the wallet's holder may accept, even one who links it after the invite was made", async () => {
    h = makeHarness();
    const [alice, bob, mallory] = [person(), person(), person()];
    const org = await newOrg(alice);
    const wallet = randomWallet();
    const inv = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", wallet_address: toChecksumAddress(wallet) });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({ kind: "wallet", wallet_address: toChecksumAddress(wallet), role: "member" });
    expect(inv.body.token).toBeUndefined();

    // Nobody holds the wallet yet: nobody can accept.
    const unknown = await call(bob, "POST", "/v1/orgs/invites/inv_aaaaaaaaaaaaaaaaaaaaaaaa/accept");
    for (const who of [bob, mallory]) {
      const r = await call(who, "POST", `/v1/orgs/invites/${inv.body.id}/accept`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(unknown.body);
    }
    expect((await call(bob, "GET", "/v1/orgs/invites/mine")).body).toEqual([]);

    // Bob links the wallet (as a later sign-in would) and can now see and accept it; Mallory still cannot.
    addWallet(h.ctx, bob.id, wallet);
    const mine = await call(bob, "GET", "/v1/orgs/invites/mine");
    expect(mine.body).toEqual([
      { id: inv.body.id, org_id: org, org_name: "Acme Agents", role: "member", wallet_address: toChecksumAddress(wallet), created_at: inv.body.created_at, expires_at: inv.body.expires_at },
    ]);
    expect((await call(mallory, "GET", "/v1/orgs/invites/mine")).body).toEqual([]);
    expect((await call(mallory, "POST", `/v1/orgs/invites/${inv.body.id}/accept`)).status).toBe(404);
    const ok = await call(bob, "POST", `/v1/orgs/invites/${inv.body.id}/accept`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: org, role: "member" });
    expect((await call(bob, "POST", `/v1/orgs/invites/${inv.body.id}/accept`)).status).toBe(404);
    expect((await call(bob, "GET", "/v1/orgs/invites/mine")).body).toEqual([]);
  });

  test("a wallet invite cannot be accepted through the link route, nor a link through the id route", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const org = await newOrg(alice);
    const wallet = randomWallet();
    addWallet(h.ctx, bob.id, wallet);
    const w = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", wallet_address: wallet });
    const l = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    expect((await call(bob, "POST", "/v1/orgs/invites/accept", { token: w.body.id })).status).toBe(404);
    expect((await call(bob, "POST", `/v1/orgs/invites/${l.body.id}/accept`)).status).toBe(404);
  });

  test("decline, duplicates, members, and bad addresses", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const org = await newOrg(alice);
    const wallet = randomWallet();
    addWallet(h.ctx, bob.id, wallet);
    const first = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", wallet_address: wallet });
    const dup = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "admin", wallet_address: wallet.toUpperCase().replace("0X", "0x") });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ type: "already_invited", invite_id: first.body.id });

    expect((await call(alice, "POST", `/v1/orgs/invites/${first.body.id}/decline`)).status).toBe(404);
    expect((await call(bob, "POST", `/v1/orgs/invites/${first.body.id}/decline`)).body).toEqual({ id: first.body.id, declined: true });
    expect((await call(bob, "POST", `/v1/orgs/invites/${first.body.id}/accept`)).status).toBe(404);
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body).toEqual([]);

    // The owner's own wallet, or any member's, is refused.
    const aliceWallet = randomWallet();
    addWallet(h.ctx, alice.id, aliceWallet);
    const member = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", wallet_address: aliceWallet });
    expect(member.status).toBe(409);
    expect(member.body.error.type).toBe("already_member");

    for (const wallet_address of ["0x123", "not-an-address", "0x" + "g".repeat(40)]) {
      const r = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", wallet_address });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("wallet_address");
    }
  });
});

describe("invite permissions and limits", () => {
  test("members cannot invite or list invites; admins cannot invite or revoke owners", async () => {
    h = makeHarness();
    const [alice, bob, carol] = [person(), person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    await join(alice, org, carol);
    const m = await call(carol, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    expect(m.status).toBe(403);
    expect(m.body.error).toMatchObject({ type: "insufficient_role", required_role: "admin", role: "member" });
    expect((await call(carol, "GET", `/v1/orgs/${org}/invites`)).body.error.type).toBe("insufficient_role");

    const a = await call(bob, "POST", `/v1/orgs/${org}/invites`, { role: "owner" });
    expect(a.status).toBe(403);
    expect(a.body.error.required_role).toBe("owner");
    expect((await call(bob, "POST", `/v1/orgs/${org}/invites`, { role: "admin" })).status).toBe(201);

    const ownerInvite = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "owner" });
    expect(ownerInvite.status).toBe(201);
    expect((await call(bob, "DELETE", `/v1/orgs/${org}/invites/${ownerInvite.body.id}`)).body.error.required_role).toBe("owner");
    expect((await call(carol, "DELETE", `/v1/orgs/${org}/invites/${ownerInvite.body.id}`)).status).toBe(403);
    expect((await call(alice, "DELETE", `/v1/orgs/${org}/invites/${ownerInvite.body.id}`)).status).toBe(200);
  });

  test("another org's invite id answers 404 on this org's routes", async () => {
    h = makeHarness();
    const [alice, bob] = [person(), person()];
    const mine = await newOrg(alice);
    const theirs = await newOrg(bob, "Other");
    const inv = await call(bob, "POST", `/v1/orgs/${theirs}/invites`, { role: "member" });
    const r = await call(alice, "DELETE", `/v1/orgs/${mine}/invites/${inv.body.id}`);
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe("invite not found");
    expect((await call(bob, "GET", `/v1/orgs/${theirs}/invites`)).body.length).toBe(1);
  });

  test("at most 200 pending invites per org; expired ones free room; list is newest first", async () => {
    h = makeHarness();
    const alice = person();
    const org = await newOrg(alice);
    for (let i = 0; i < 199; i++) await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member", expires_in_secs: 3600 });
    h.clock.advance(1000);
    const last = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "admin" });
    expect(last.status).toBe(201);
    const full = await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" });
    expect(full.status).toBe(409);
    expect(full.body.error.type).toBe("too_many_invites");
    const list = await call(alice, "GET", `/v1/orgs/${org}/invites`);
    expect(list.body.length).toBe(200);
    expect(list.body[0].id).toBe(last.body.id);

    h.clock.advance(3_600_000);
    expect((await call(alice, "GET", `/v1/orgs/${org}/invites`)).body.map((i: { id: string }) => i.id)).toEqual([last.body.id]);
    expect((await call(alice, "POST", `/v1/orgs/${org}/invites`, { role: "member" })).status).toBe(201);
  });
});

describe("role checks for other domains (spec §5 rule 7)", () => {
  test("requireOrgRole: 404 for non-members and unknown orgs, 403 insufficient_role below the minimum", async () => {
    h = makeHarness();
    const [alice, bob, carol] = [person(), person(), person()];
    const org = await newOrg(alice);
    await join(alice, org, bob, "admin");
    expect(requireOrgRole(h.ctx, org, alice.id, "admin")).toBe("owner");
    expect(requireOrgRole(h.ctx, org, bob.id, "admin")).toBe("admin");
    expect(requireOrgRole(h.ctx, org, bob.id, "member")).toBe("admin");
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err as { status: number; type: string; extra: Record<string, unknown> };
      }
      throw new Error("expected a throw");
    };
    expect(thrown(() => requireOrgRole(h.ctx, org, bob.id, "owner"))).toMatchObject({ status: 403, type: "insufficient_role", extra: { required_role: "owner", role: "admin" } });
    const outsider = thrown(() => requireOrgRole(h.ctx, org, carol.id, "member"));
    const unknown = thrown(() => requireOrgRole(h.ctx, "org_nope", carol.id, "member"));
    expect(outsider).toMatchObject({ status: 404, type: "not_found" });
    expect(unknown).toEqual(outsider);
    expect(orgRole(h.ctx, org, carol.id)).toBeNull();

    // Acting in one's own name, an account is the owner of its own resources.
    expect(requireActingRole(h.ctx, carol.id, null, "admin")).toBe("owner");
    expect(thrown(() => requireActingRole(h.ctx, carol.id, org, "admin")).status).toBe(404);
    expect(requireActingRole(h.ctx, bob.id, org, "admin")).toBe("admin");
  });
});
