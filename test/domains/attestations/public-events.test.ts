/**
 * The public verification view (GET /v1/assets/:asset_id/verification, unauthenticated) and its
 * 404s (unknown, private, an issuer declaration or sealed data, no longer public), public asset
 * ids unique across accounts, and the attestation.* events delivered to a real webhook receiver
 * (signatures checked by the receiver) as refreshes change the status and the clock ages it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { registerJobs } from "../../../src/jobs.ts";
import { type Devnet, startDevnet } from "../../support/devnet.ts";
import type { Harness } from "../../support/harness.ts";
import { type Receiver, startReceiver } from "../../support/receiver.ts";
import {
  attestationsHarness,
  check,
  coverBody,
  CUSTODIAN_SECRET,
  type Custodian,
  refresh,
  startCustodian,
  supplySource,
  tenant,
  verifiedPayload,
  type World,
} from "./attestations-support.ts";

let chain: Devnet;
let token: Address;
let custodian: Custodian;
let h: Harness;
let w: World;
let rx: Receiver | undefined;

beforeAll(async () => {
  chain = await startDevnet();
  token = await chain.deployToken();
  await chain.mint(token, chain.accounts[1]!, 500_000n * 1_000_000n);
  custodian = startCustodian();
});
afterAll(async () => {
  custodian?.stop();
  await chain?.stop();
});
afterEach(async () => {
  h?.close();
  await rx?.close();
  rx = undefined;
});

function setUp() {
  h = attestationsHarness(chain, token);
  w = { h, chain, token, custodian };
  custodian.state.down = false;
  custodian.state.reserves = "600000";
  return tenant(h);
}

const verification = (assetId: string) => h.json("GET", `/v1/assets/${assetId}/verification`);

describe("GET /v1/assets/:asset_id/verification", () => {
  test("a public record is served unauthenticated: the signed record, its sources' refs and fingerprints, never the owner's charge", async () => {
    const a = setUp();
    const body = coverBody(w, {
      asset_id: "usdx-public",
      public: true,
      sources: [{ kind: "custodian", url: custodian.url("/reserves"), pointer: "/reserves/usd" }, { kind: "third_party_attestation", url: custodian.url("/report.json") }, supplySource(token)],
    });
    const r = await check(h, a, body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ public: true, public_url: `${h.ctx.config.public_url.replace(/\/+$/, "")}/v1/assets/usdx-public/verification` });
    const v = await verification("usdx-public");
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({
      attestation_id: r.body.attestation_id,
      asset_id: "usdx-public",
      seq: 1,
      status: "VERIFIED",
      status_at_check: "VERIFIED",
      claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600 },
      reconciliation: r.body.reconciliation,
      evidence_references: r.body.evidence_references,
      receipt: r.body.receipt,
      signature: r.body.signature,
    });
    expect(v.body.disclaimer).toContain("not an audit");
    expect(v.body.charge).toBeUndefined();
    expect(v.body.evidence_references.map((e: any) => e.source_kind)).toEqual(["custodian", "third_party_attestation", "erc20_supply"]);
    const payload = await verifiedPayload(h, v.body);
    expect(payload).toMatchObject({ public: true, draws_on_sealed_data: false, claim: { issuer_declared: false } });

    // STALE applies to the public view too.
    h.clock.advance(3600_000);
    expect((await verification("usdx-public")).body).toMatchObject({ status: "STALE", status_at_check: "VERIFIED", freshness: { fresh: false } });

    // The owner takes it private with a new check: the same 404 as an id never seen.
    const unknown = await verification("never-seen");
    expect(unknown.status).toBe(404);
    await check(h, a, { ...body, public: false });
    const gone = await verification("usdx-public");
    expect([gone.status, gone.body]).toEqual([404, unknown.body]);
  });

  test("404 for a private record, and a record drawing on an issuer declaration or sealed data can never be made public", async () => {
    const a = setUp();
    const unknown = await verification("nothing-here");
    await check(h, a, coverBody(w, { asset_id: "private-one" }));
    const declared = { asset_id: "declared", subject_ref: "USDX", claim: { kind: "reserves_cover_supply", declared_figure: "900000" }, sources: [supplySource(token)] };
    expect((await check(h, a, declared)).status).toBe(201);
    const credentialed = coverBody(w, { asset_id: "sealed", sources: [{ kind: "custodian", url: custodian.url("/private/reserves"), pointer: "/reserves/usd", credential: CUSTODIAN_SECRET }, supplySource(token)] });
    expect((await check(h, a, credentialed)).status).toBe(201);
    const inline = coverBody(w, {
      asset_id: "inline",
      sources: [{ kind: "third_party_attestation", document_b64: Buffer.from(JSON.stringify({ reserves: "700000" })).toString("base64"), pointer: "/reserves" }, supplySource(token)],
    });
    expect((await check(h, a, inline)).body.status).toBe("VERIFIED");
    for (const id of ["private-one", "declared", "sealed", "inline"]) {
      const r = await verification(id);
      expect([id, r.status, r.body]).toEqual([id, 404, unknown.body]);
    }
    // Asking to publish them is refused when the check is made, naming `public`, and costs nothing.
    const before = h.ctx.ledger.balance(a.accountId).balance_micro_usd;
    for (const body of [declared, credentialed, inline]) {
      const r = await check(h, a, { ...body, public: true });
      expect([body.asset_id, r.status, r.body.error.param]).toEqual([body.asset_id, 400, "public"]);
    }
    expect(h.ctx.ledger.balance(a.accountId).balance_micro_usd).toBe(before);
  });

  test("a public asset_id belongs to the first account to publish it: another account's public check is 409, its private one is its own", async () => {
    const a = setUp();
    const b = tenant(h);
    await check(h, a, coverBody(w, { public: true }));
    const before = h.ctx.ledger.balance(b.accountId).balance_micro_usd;
    const taken = await check(h, b, coverBody(w, { public: true }));
    expect([taken.status, taken.body.error.type]).toEqual([409, "asset_id_taken"]);
    expect(h.ctx.ledger.balance(b.accountId).balance_micro_usd).toBe(before);
    custodian.state.reserves = "1";
    const own = await check(h, b, coverBody(w));
    expect(own.body).toMatchObject({ status: "DISCREPANCY", public: false });
    // The public view still shows the publisher's record.
    expect((await verification("usdx")).body).toMatchObject({ status: "VERIFIED", attestation_id: expect.any(String) });
    expect((await verification("usdx")).body.attestation_id).not.toBe(own.body.attestation_id);
  });
});

describe("attestation.* events", () => {
  test("a refresh that changes the status fires its event; the window running out fires attestation.stale once; payloads carry ids and statuses, never figures", async () => {
    const a = setUp();
    registerJobs(h.ctx);
    rx = await startReceiver();
    const hook = await h.json("POST", "/v1/webhooks", { ...a.session, body: { url: rx.url("/hook"), events: ["attestation.*"] } });
    expect(hook.status).toBe(201);
    rx.setSecret("/hook", hook.body.secret);
    const run = () => h.ctx.scheduler.runDue();
    const types = () => rx!.received.map((r) => r.json.type);

    const v1 = await check(h, a, coverBody(w));
    await run();
    expect(types()).toEqual([]); // a first version is not a change

    custodian.state.down = true;
    const v2 = await refresh(h, a, "usdx");
    expect(v2.body.status).toBe("UNAVAILABLE");
    await run();
    await rx.waitFor(() => rx!.received.length === 1, "attestation.unavailable");
    const first = rx.received[0]!;
    expect(first.signatureValid).toBe(true);
    expect(first.json).toMatchObject({
      type: "attestation.unavailable",
      account_id: a.accountId,
      data: { asset_id: "usdx", attestation_id: v2.body.attestation_id, seq: 2, from: "VERIFIED", to: "UNAVAILABLE", previous_attestation_id: v1.body.attestation_id, previous_seq: 1 },
    });

    await refresh(h, a, "usdx"); // still down: no change, no event
    custodian.state.down = false;
    const v4 = await refresh(h, a, "usdx");
    await run();
    await rx.waitFor(() => rx!.received.length === 2, "attestation.verified");
    expect(rx.received[1]!.json.data).toMatchObject({ attestation_id: v4.body.attestation_id, seq: 4, from: "UNAVAILABLE", to: "VERIFIED", previous_seq: 3 });

    h.clock.advance(3600_000);
    await run();
    await rx.waitFor(() => rx!.received.length === 3, "attestation.stale");
    expect(rx.received[2]!.json).toMatchObject({ type: "attestation.stale", data: { attestation_id: v4.body.attestation_id, seq: 4, from: "VERIFIED", to: "STALE", previous_attestation_id: null } });
    h.clock.advance(120_000);
    await run();
    expect(types()).toEqual(["attestation.unavailable", "attestation.verified", "attestation.stale"]);

    // A refresh of the STALE record that verifies again is a change too; then a shortfall.
    await refresh(h, a, "usdx");
    custodian.state.reserves = "1";
    await refresh(h, a, "usdx");
    await run();
    await rx.waitFor(() => rx!.received.length === 5, "two more events");
    expect(rx.received.slice(3).map((r) => [r.json.type, r.json.data.from, r.json.data.to, r.json.data.seq])).toEqual([
      ["attestation.verified", "STALE", "VERIFIED", 5],
      ["attestation.discrepancy", "VERIFIED", "DISCREPANCY", 6],
    ]);
    for (const r of rx.received) {
      expect(r.signatureValid).toBe(true);
      expect(Object.keys(r.json.data).sort()).toEqual(["asset_id", "at", "attestation_id", "from", "previous_attestation_id", "previous_seq", "seq", "to"]);
      expect(r.body).not.toContain("600000");
    }
  });
});
