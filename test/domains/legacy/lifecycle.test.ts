/**
 * Legacy plans through HTTP with the clock moved by hand: check-ins, a missed deadline, the
 * warning, the attester brake, release, claiming once, the content handed over, cancellation.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { sha256Hex } from "../../../src/core/secrets.ts";
import type { Harness } from "../../support/harness.ts";
import { advance, b64, createPlan, DAY, eventsOf, HOUR, legacyHarness, MINUTE, plan, planRow, tenant } from "./legacy-support.ts";

let h: Harness;
afterEach(() => h?.close());

const iso = (ms: number) => new Date(ms).toISOString();

describe("a plan without attesters", () => {
  test("check-ins reset the deadline; a missed one warns; the warning's end releases; each beneficiary opens once and gets the bytes", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const heir = tenant(h);
    const friend = tenant(h);
    const t0 = h.clock.now();
    const made = await createPlan(h, owner, { beneficiaries: [{ wallet: heir.wallet, label: "heir" }, { label: "old friend" }] });
    expect(made.plan).toMatchObject({
      name: "for the family",
      status: "active",
      checkin_interval_s: 86_400,
      warning_period_s: 172_800,
      last_checkin_at: iso(t0),
      deadline_at: iso(t0 + DAY),
      warning_started_at: null,
      attesters: [],
      attesters_required: 0,
      max_hold_s: null,
      objects: [],
      content_available: true,
    });
    expect(made.plan.id).toMatch(/^lgp_[a-z2-7]{24}$/);
    expect(made.plan.beneficiaries.map((b: any) => [b.label, b.wallet, b.link_active])).toEqual([
      ["heir", toChecksumAddress(heir.wallet), true],
      ["old friend", null, true],
    ]);
    const [heirLink, friendLink] = made.claim_links;
    expect(heirLink!.token).toMatch(/^lgc_[A-Za-z0-9_-]{43}$/);
    expect(heirLink!.url).toBe(`${h.ctx.config.public_url}/v1/legacy/claim/${heirLink!.token}`);
    // Tokens are kept as sha256 only.
    const tokens = h.ctx.db.query<{ token_sha256: string }, []>("SELECT token_sha256 FROM legacy_beneficiaries ORDER BY position").all().map((r) => r.token_sha256);
    expect(tokens).toEqual([sha256Hex(heirLink!.token), sha256Hex(friendLink!.token)]);
    const id = made.plan.id;

    const put = await h.json("PUT", `/v1/legacy/plans/${id}/content`, {
      headers: owner.auth,
      body: { objects: [{ name: "letter.txt", content_b64: b64("the key is under the mat") }, { name: "seed.bin", content_b64: b64(new Uint8Array([0, 1, 2, 255])) }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.objects.map((o: any) => [o.name, o.bytes])).toEqual([["letter.txt", 24], ["seed.bin", 4]]);
    expect(put.body.content_bytes).toBe(28);
    const dump = JSON.stringify(h.ctx.db.query("SELECT * FROM legacy_objects").all());
    expect(dump).not.toContain("under the mat");
    expect(dump).not.toContain(b64("the key is under the mat"));

    const link = await h.json("GET", `/v1/legacy/claim/${heirLink!.token}`);
    expect(link).toMatchObject({ status: 200, body: { plan_name: "for the family", wallet_required: true, status: "waiting" } });
    expect((await h.json("GET", `/v1/legacy/claim/${friendLink!.token}`)).body).toEqual({ plan_name: "for the family", wallet_required: false, status: "waiting" });

    // Just before the deadline: still active. A check-in then restarts it from now.
    await advance(h, DAY - HOUR);
    expect((await plan(h, owner, id)).status).toBe("active");
    const checked = await h.json("POST", `/v1/legacy/plans/${id}/checkin`, { headers: owner.auth });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ status: "active", last_checkin_at: iso(h.clock.now()), deadline_at: iso(h.clock.now() + DAY) });

    // The old deadline passes unnoticed; the new one is missed.
    await advance(h, 2 * HOUR);
    expect((await plan(h, owner, id)).status).toBe("active");
    await advance(h, DAY);
    const warned = await plan(h, owner, id);
    expect(warned).toMatchObject({ status: "warning", warning_started_at: iso(h.clock.now()), warning_ends_at: iso(h.clock.now() + 2 * DAY), hold_until: null });
    expect(eventsOf(h, "legacy_plan_warning")).toEqual([
      { account_id: owner.accountId, payload: { plan_id: id, plan_name: "for the family", deadline_at: warned.deadline_at, warning_ends_at: warned.warning_ends_at, role: "owner" } },
    ]);
    // In warning the claim link tells nothing of it.
    expect((await h.json("GET", `/v1/legacy/claim/${heirLink!.token}`)).body.status).toBe("waiting");

    // A check-in in warning clears it.
    const back = await h.json("POST", `/v1/legacy/plans/${id}/checkin`, { headers: owner.auth });
    expect(back.body).toMatchObject({ status: "active", warning_started_at: null, warning_ends_at: null });

    // Missed again, and the warning runs out: released.
    await advance(h, DAY + MINUTE);
    expect((await plan(h, owner, id)).status).toBe("warning");
    await advance(h, 2 * DAY - 30_000);
    expect((await plan(h, owner, id)).status).toBe("warning");
    await advance(h, MINUTE);
    const released = await plan(h, owner, id);
    expect(released).toMatchObject({ status: "released", released_at: iso(h.clock.now()), release_reason: "timer" });
    expect(released.history.map((e: any) => e.event)).toEqual(["created", "content_replaced", "checkin", "warning", "checkin", "warning", "released"]);
    const releasedEvents = eventsOf(h, "legacy_plan_released");
    expect(releasedEvents.map((e) => [e.account_id, e.payload.role])).toEqual([
      [owner.accountId, "owner"],
      [heir.accountId, "beneficiary"],
    ]);

    // Content is frozen once released.
    const frozen = await h.json("PUT", `/v1/legacy/plans/${id}/content`, { headers: owner.auth, body: { objects: [] } });
    expect(frozen).toMatchObject({ status: 409, body: { error: { type: "legacy_plan_released" } } });

    expect((await h.json("GET", `/v1/legacy/claim/${heirLink!.token}`)).body.status).toBe("released");
    const claims = await h.json("GET", "/v1/legacy/claims", { headers: heir.auth });
    expect(claims.status).toBe(200);
    expect(claims.body).toEqual({
      claims: [{ plan_id: id, plan_name: "for the family", beneficiary_id: heirLink!.beneficiary_id, status: "released", wallet_required: true, released_at: released.released_at, claimed_at: null, objects: [] }],
    });

    // The heir opens it once, signed in with the wallet (no token needed), and reads the bytes.
    const opened = await h.json("POST", `/v1/legacy/claims/${id}/open`, { headers: heir.auth });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ plan_id: id, plan_name: "for the family", beneficiary_id: heirLink!.beneficiary_id, claimed_at: iso(h.clock.now()) });
    const [letter, seed] = opened.body.objects;
    const got = await h.json("GET", `/v1/legacy/claims/${id}/objects/${letter.id}`, { headers: heir.auth });
    expect(got).toMatchObject({ status: 200, body: { id: letter.id, name: "letter.txt", bytes: 24, content_b64: b64("the key is under the mat") } });
    expect(Buffer.from((await h.json("GET", `/v1/legacy/claims/${id}/objects/${seed.id}`, { headers: heir.auth })).body.content_b64, "base64")).toEqual(Buffer.from([0, 1, 2, 255]));

    const again = await h.json("POST", `/v1/legacy/claims/${id}/open`, { headers: heir.auth, body: {} });
    expect(again).toMatchObject({ status: 409, body: { error: { type: "legacy_already_claimed" } } });
    expect((await plan(h, owner, id))).toMatchObject({ status: "claimed", claimed_at: iso(h.clock.now()) });
    expect(eventsOf(h, "legacy_plan_claimed")).toEqual([
      { account_id: owner.accountId, payload: { plan_id: id, plan_name: "for the family", beneficiary_id: heirLink!.beneficiary_id, claimed_at: iso(h.clock.now()) } },
    ]);
    expect((await h.json("GET", `/v1/legacy/claim/${heirLink!.token}`)).body.status).toBe("claimed");
    expect((await h.json("GET", "/v1/legacy/claims", { headers: heir.auth })).body.claims[0]).toMatchObject({ status: "claimed", objects: [{ name: "letter.txt" }, { name: "seed.bin" }] });

    // The heir's link in anyone else's hands is not enough: the wallet is required.
    const stolen = await h.json("POST", `/v1/legacy/claims/${id}/open`, { headers: friend.auth, body: { token: heirLink!.token } });
    expect(stolen).toMatchObject({ status: 403, body: { error: { type: "wallet_required" } } });
    // Not opened by this account: its objects are not found.
    expect((await h.json("GET", `/v1/legacy/claims/${id}/objects/${letter.id}`, { headers: friend.auth })).status).toBe(404);

    // The old friend has no wallet: the token is the credential, from any session, once.
    const byToken = await h.json("POST", `/v1/legacy/claims/${id}/open`, { headers: friend.auth, body: { token: friendLink!.token } });
    expect(byToken.status).toBe(200);
    expect((await h.json("GET", `/v1/legacy/claims/${id}/objects/${letter.id}`, { headers: friend.auth })).body.content_b64).toBe(b64("the key is under the mat"));
    expect((await h.json("POST", `/v1/legacy/claims/${id}/open`, { headers: friend.auth, body: { token: friendLink!.token } })).status).toBe(409);
    expect((await h.json("GET", "/v1/legacy/claims", { headers: friend.auth })).body.claims.map((c: any) => [c.beneficiary_id, c.status])).toEqual([[friendLink!.beneficiary_id, "claimed"]]);

    // A claimed plan takes no check-in.
    expect((await h.json("POST", `/v1/legacy/plans/${id}/checkin`, { headers: owner.auth })).body.error.type).toBe("legacy_plan_closed");
  });

  test("opening before release is refused; a check-in withdraws a release no one has opened", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const heir = tenant(h);
    const { plan: p } = await createPlan(h, owner, { beneficiaries: [{ wallet: heir.wallet }] });
    expect((await h.json("POST", `/v1/legacy/claims/${p.id}/open`, { headers: heir.auth, body: {} })).body.error.type).toBe("legacy_plan_not_released");
    expect((await h.json("GET", "/v1/legacy/claims", { headers: heir.auth })).body).toEqual({ claims: [] });
    await advance(h, DAY);
    await advance(h, 2 * DAY);
    expect((await plan(h, owner, p.id)).status).toBe("released");
    const back = await h.json("POST", `/v1/legacy/plans/${p.id}/checkin`, { headers: owner.auth });
    expect(back.body).toMatchObject({ status: "active", released_at: null, release_reason: null });
    expect((await h.json("POST", `/v1/legacy/claims/${p.id}/open`, { headers: heir.auth, body: {} })).body.error.type).toBe("legacy_plan_not_released");
  });
});

describe("attesters: a brake, not the timer", () => {
  test("confirmations count only in warning, never release before the warning's end, hold the release until enough came, and a check-in clears them", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const a = tenant(h);
    const b = tenant(h);
    const heir = tenant(h);
    const { plan: p } = await createPlan(h, owner, {
      attesters: [a.wallet, toChecksumAddress(b.wallet)],
      attesters_required: 2,
      max_hold_s: 10 * 86_400,
      beneficiaries: [{ wallet: heir.wallet }],
    });
    expect(p).toMatchObject({ attesters_required: 2, max_hold_s: 864_000, confirmations: 0 });
    expect(p.attesters).toEqual([
      { wallet: toChecksumAddress(a.wallet), confirmed: false },
      { wallet: toChecksumAddress(b.wallet), confirmed: false },
    ]);

    const attesting = await h.json("GET", "/v1/legacy/attesting", { headers: a.auth });
    expect(attesting.status).toBe(200);
    expect(attesting.body.plans).toEqual([
      expect.objectContaining({ id: p.id, name: "for the family", owner_wallet: toChecksumAddress(owner.wallet), status: "active", attesters_required: 2, confirmations: 0, confirmed_by_you: false }),
    ]);
    expect((await h.json("GET", "/v1/legacy/attesting", { headers: heir.auth })).body).toEqual({ plans: [] });

    // Outside warning an attestation is refused; a non-attester's is "not found".
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: a.auth })).body.error.type).toBe("legacy_plan_not_in_warning");
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: heir.auth })).status).toBe(404);

    await advance(h, DAY);
    expect((await plan(h, owner, p.id)).status).toBe("warning");
    expect(eventsOf(h, "legacy_plan_warning").map((e) => [e.account_id, e.payload.role])).toEqual([
      [owner.accountId, "owner"],
      [a.accountId, "attester"],
      [b.accountId, "attester"],
    ]);
    const first = await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: a.auth });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "warning", confirmations: 1, confirmed_by_you: true, confirmed_at: iso(h.clock.now()) });
    // Twice from one attester counts once.
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: a.auth })).body.confirmations).toBe(1);

    // The warning ends with one confirmation of two: held.
    await advance(h, 2 * DAY);
    const held = await plan(h, owner, p.id);
    expect(held).toMatchObject({ status: "warning", confirmations: 1, hold_until: iso(Date.parse(held.warning_ends_at) + 10 * DAY) });
    expect(held.attesters.map((x: any) => x.confirmed)).toEqual([true, false]);

    // A check-in clears the warning and every confirmation.
    const checked = await h.json("POST", `/v1/legacy/plans/${p.id}/checkin`, { headers: owner.auth });
    expect(checked.body).toMatchObject({ status: "active", confirmations: 0, warning_started_at: null, hold_until: null });
    expect(checked.body.attesters.map((x: any) => x.confirmed)).toEqual([false, false]);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM legacy_confirmations").get()).toEqual({ n: 0 });

    // Missed again; both confirm early in the warning: still the timer decides (no release before its end).
    await advance(h, DAY);
    await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: a.auth });
    const both = await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: b.auth });
    expect(both.body).toMatchObject({ status: "warning", confirmations: 2 });
    await advance(h, DAY);
    expect((await plan(h, owner, p.id)).status).toBe("warning");
    await advance(h, DAY);
    expect((await plan(h, owner, p.id))).toMatchObject({ status: "released", release_reason: "attesters" });
    // Released: attesters no longer count.
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/attest`, { headers: a.auth })).body.error.type).toBe("legacy_plan_not_in_warning");
  });

  test("the confirmation that completes the count after the warning releases at once; with none, the hold's end does", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const a = tenant(h);
    const { plan: late } = await createPlan(h, owner, { attesters: [a.wallet], beneficiaries: [{}] });
    const { plan: silent } = await createPlan(h, owner, { name: "no one answers", attesters: [a.wallet], max_hold_s: 5 * 86_400, beneficiaries: [{}] });
    expect(late).toMatchObject({ attesters_required: 1, max_hold_s: h.ctx.config.legacy.default_max_hold_secs });
    await advance(h, DAY);
    await advance(h, 2 * DAY);
    expect((await plan(h, owner, late.id)).status).toBe("warning");
    const confirmed = await h.json("POST", `/v1/legacy/plans/${late.id}/attest`, { headers: a.auth });
    expect(confirmed.body).toMatchObject({ status: "released" });
    expect((await plan(h, owner, late.id))).toMatchObject({ status: "released", release_reason: "attesters", released_at: iso(h.clock.now()) });

    await advance(h, 5 * DAY - MINUTE);
    expect((await plan(h, owner, silent.id)).status).toBe("warning");
    await advance(h, 2 * MINUTE);
    expect((await plan(h, owner, silent.id))).toMatchObject({ status: "released", release_reason: "hold_expired" });
  });
});

describe("cancel", () => {
  test("nulls the ciphertexts and the claim tokens; the link then answers the 404 of an unknown token; the content-free record stays", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const heir = tenant(h);
    const { plan: p, claim_links } = await createPlan(h, owner, { beneficiaries: [{ wallet: heir.wallet }, { label: "by token" }] });
    await h.json("PUT", `/v1/legacy/plans/${p.id}/content`, { headers: owner.auth, body: { objects: [{ name: "a.txt", content_b64: b64("secret a") }] } });
    expect(h.ctx.db.query<{ sealed: string | null }, []>("SELECT sealed FROM legacy_objects").get()!.sealed).toMatch(/^v1\./);

    const unknown = await h.json("GET", `/v1/legacy/claim/lgc_${"x".repeat(43)}`);
    expect(unknown.status).toBe(404);

    const cancelled = await h.json("POST", `/v1/legacy/plans/${p.id}/cancel`, { headers: owner.auth });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "cancelled", cancelled_at: iso(h.clock.now()), content_available: false, objects: [{ name: "a.txt", bytes: 8 }] });
    expect(cancelled.body.beneficiaries.map((b: any) => b.link_active)).toEqual([false, false]);
    expect(h.ctx.db.query("SELECT sealed FROM legacy_objects").all()).toEqual([{ sealed: null }]);
    expect(h.ctx.db.query("SELECT token_sha256 FROM legacy_beneficiaries").all()).toEqual([{ token_sha256: null }, { token_sha256: null }]);
    expect(planRow(h, p.id).next_check_at).toBeNull();

    for (const link of claim_links) {
      const gone = await h.json("GET", `/v1/legacy/claim/${link.token}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual(unknown.body);
    }
    // Idempotent; history kept; no move afterwards.
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/cancel`, { headers: owner.auth })).body.cancelled_at).toBe(cancelled.body.cancelled_at);
    // Past the deadline and the warning: a cancelled plan makes no move.
    await advance(h, 4 * DAY);
    const after = await plan(h, owner, p.id);
    expect(after.status).toBe("cancelled");
    expect(after.history.map((e: any) => e.event)).toEqual(["created", "content_replaced", "cancelled"]);
    expect((await h.json("POST", `/v1/legacy/plans/${p.id}/checkin`, { headers: owner.auth })).body.error.type).toBe("legacy_plan_closed");
    expect((await h.json("PUT", `/v1/legacy/plans/${p.id}/content`, { headers: owner.auth, body: { objects: [] } })).body.error.type).toBe("legacy_plan_closed");
    expect((await h.json("POST", `/v1/legacy/claims/${p.id}/open`, { headers: heir.auth, body: {} })).status).toBe(404);
  });

  test("a released, opened plan cancelled: its objects can no longer be fetched", async () => {
    h = legacyHarness();
    const owner = tenant(h);
    const heir = tenant(h);
    const { plan: p } = await createPlan(h, owner, { beneficiaries: [{ wallet: heir.wallet }] });
    await h.json("PUT", `/v1/legacy/plans/${p.id}/content`, { headers: owner.auth, body: { objects: [{ name: "a.txt", content_b64: b64("secret a") }] } });
    await advance(h, DAY);
    await advance(h, 2 * DAY);
    const opened = await h.json("POST", `/v1/legacy/claims/${p.id}/open`, { headers: heir.auth, body: {} });
    const objectId = opened.body.objects[0].id;
    expect((await h.json("GET", `/v1/legacy/claims/${p.id}/objects/${objectId}`, { headers: heir.auth })).status).toBe(200);
    await h.json("POST", `/v1/legacy/plans/${p.id}/cancel`, { headers: owner.auth });
    expect((await h.json("GET", `/v1/legacy/claims/${p.id}/objects/${objectId}`, { headers: heir.auth })).status).toBe(404);
    expect((await h.json("GET", "/v1/legacy/claims", { headers: heir.auth })).body).toEqual({ claims: [] });
  });
});
