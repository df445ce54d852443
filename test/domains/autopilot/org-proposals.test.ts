/**
 * Proposals shared with an org (spec §5 rule 7: adoption needs the admin role): a member
 * analyses with org_id; every member reads them; a member's adopt or reject is 403
 * insufficient_role; an org admin adopts (the change applies to the analysing account, and the
 * proposal records who adopted it) and the owner rejects; a non-member gets 404 everywhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { modelRoutesOf } from "../../../src/domains/inference/index.ts";
import type { Gateway } from "../inference/inference-support.ts";
import { analyze, chat, evalRuns, kindOf, startAutopilotGateway, type Tenant, tenant } from "./autopilot-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startAutopilotGateway();
});
afterAll(() => g.stop());

const call = (who: Tenant, method: string, path: string, body?: unknown) => g.h.json(method, path, { headers: who.auth, body });

async function newOrg(owner: Tenant): Promise<string> {
  const r = await call(owner, "POST", "/v1/orgs", { name: "Acme Agents" });
  expect(r.status).toBe(201);
  return r.body.id;
}

async function join(owner: Tenant, orgId: string, who: Tenant, role: "member" | "admin") {
  const inv = await call(owner, "POST", `/v1/orgs/${orgId}/invites`, { role });
  expect(inv.status).toBe(201);
  const r = await call(who, "POST", "/v1/orgs/invites/accept", { token: inv.body.token });
  expect(r.status).toBe(200);
}

describe("org proposals", () => {
  test("a member analyses for the org; members read, a member cannot decide, an admin adopts, the owner rejects", async () => {
    const owner = tenant(g);
    const admin = tenant(g);
    const member = tenant(g);
    const outsider = tenant(g);
    const org = await newOrg(owner);
    await join(owner, org, admin, "admin");
    await join(owner, org, member, "member");

    await chat(g, member, "big-model", 2);
    await evalRuns(g, member, [{ input: "q [[say yes]]", expected: "yes", assert: "exact" }], ["big-model", "mid-model"]);
    g.h.clock.advance(1000);

    // Not a member of the org: the same 404 as for no org at all.
    for (const orgId of [org, "org_doesnotexist"]) {
      const r = await analyze(g, outsider, { org_id: orgId });
      expect([orgId, r.status, r.body.error.type]).toEqual([orgId, 404, "not_found"]);
    }

    const r = await analyze(g, member, { org_id: org });
    expect(r.status).toBe(201);
    const [sw] = kindOf(r.body.proposals, "switch_model");
    const [cap] = kindOf(r.body.proposals, "set_key_cap");
    expect(sw).toMatchObject({ account_id: member.accountId, org_id: org, change: { from: "big-model", to: "mid-model" } });
    expect(cap).toMatchObject({ account_id: member.accountId, org_id: org, change: { key_id: member.keyId } });

    // Every member sees them; an outsider does not.
    for (const who of [owner, admin, member]) {
      const list = await call(who, "GET", "/v1/autopilot/proposals");
      expect(list.body.proposals.map((p: any) => p.id).sort()).toEqual([sw.id, cap.id].sort());
      const one = await call(who, "GET", `/v1/autopilot/proposals/${sw.id}`);
      expect(one.status).toBe(200);
    }
    expect((await call(outsider, "GET", "/v1/autopilot/proposals")).body.proposals).toEqual([]);
    for (const path of [`/v1/autopilot/proposals/${sw.id}`]) expect((await call(outsider, "GET", path)).status).toBe(404);
    expect((await call(outsider, "POST", `/v1/autopilot/proposals/${sw.id}/adopt`)).status).toBe(404);
    expect((await call(outsider, "POST", `/v1/autopilot/proposals/${cap.id}/reject`, {})).status).toBe(404);

    // The member who analysed may not decide, even on its own account's changes.
    for (const [path, body] of [
      [`/v1/autopilot/proposals/${sw.id}/adopt`, undefined],
      [`/v1/autopilot/proposals/${cap.id}/reject`, { reason: "no" }],
    ] as const) {
      const refused = await call(member, "POST", path, body);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ type: "insufficient_role", required_role: "admin", role: "member" });
    }
    expect(modelRoutesOf(g.h.ctx, member.accountId)).toEqual([]);

    // An admin adopts: the member's account is routed; the proposal names the admin.
    g.h.clock.advance(1000);
    const adopted = await call(admin, "POST", `/v1/autopilot/proposals/${sw.id}/adopt`);
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ status: "adopted", adopted_by: admin.accountId, adopted_at: new Date(g.h.clock.now()).toISOString() });
    expect(modelRoutesOf(g.h.ctx, member.accountId).map((x) => [x.from, x.to])).toEqual([["big-model", "mid-model"]]);
    expect(modelRoutesOf(g.h.ctx, admin.accountId)).toEqual([]);

    // The owner rejects the cap.
    const rejected = await call(owner, "POST", `/v1/autopilot/proposals/${cap.id}/reject`, { reason: "budgeted elsewhere" });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: "rejected", rejected_by: owner.accountId, reject_reason: "budgeted elsewhere" });
    const keys = await call(member, "GET", "/v1/keys");
    expect(keys.body.find((k: any) => k.id === member.keyId).monthly_cap_micro_usd).toBeNull();

    // A member who leaves stops seeing the org's proposals made by others.
    const left = await call(admin, "POST", `/v1/orgs/${org}/leave`);
    expect(left.status).toBe(200);
    expect((await call(admin, "GET", `/v1/autopilot/proposals/${sw.id}`)).status).toBe(404);
    // The analysing account still sees its own.
    expect((await call(member, "GET", `/v1/autopilot/proposals/${sw.id}`)).status).toBe(200);
  });

  test("a personal proposal of an org member stays personal: other members get 404, and its account adopts it as owner", async () => {
    const owner = tenant(g);
    const member = tenant(g);
    const org = await newOrg(owner);
    await join(owner, org, member, "member");
    await chat(g, member, "small-model", 1);
    g.h.clock.advance(1000);
    const r = await analyze(g, member);
    const [cap] = kindOf(r.body.proposals, "set_key_cap");
    expect(cap.org_id).toBeNull();
    expect((await call(owner, "GET", `/v1/autopilot/proposals/${cap.id}`)).status).toBe(404);
    expect((await call(owner, "POST", `/v1/autopilot/proposals/${cap.id}/adopt`)).status).toBe(404);
    const adopted = await call(member, "POST", `/v1/autopilot/proposals/${cap.id}/adopt`);
    expect(adopted.status).toBe(200);
    expect(adopted.body.adopted_by).toBe(member.accountId);
  });
});
