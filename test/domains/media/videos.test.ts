/**
 * Video jobs end to end through the app, against the stand-in provider (test/support/
 * upstream-media.ts): the job's life (queued → running → succeeded, failed, canceled, expired),
 * what is billed and held at each step, the receipt and the embedded C2PA manifest naming each
 * other, the content's lifetime (DELETE, TTL), and tenant isolation. The clock is moved by hand
 * and the scheduler run after it; nothing sleeps.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readManifest } from "../../../src/domains/media/provenance/c2pa.ts";
import { checkManifest } from "../../../src/domains/media/provenance/manifest.ts";
import { provenanceCredential } from "../../../src/domains/media/signing.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { balance, USD, usageEvents, verifyReceipt } from "../inference/inference-support.ts";
import { startMediaGateway, VIDEO_PRICE_PER_SECOND } from "./media-support.ts";
import { auth, creates, jobOf, POLL_MS, startJob, tick, untilFinished } from "./videos-support.ts";

const MAX_HOLD = 12 * VIDEO_PRICE_PER_SECOND;
const CREDIT = 100 * USD;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("a video job that succeeds", () => {
  test("holds the longest duration, bills the seconds rendered, and its receipt and manifest name each other", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { seconds: 4, size: "720x1280" });
    expect(created).toMatchObject({ object: "video.generation", status: "queued", progress: 0, model: "vid-test", seconds: 4, size: "720x1280", billed: false, cost_micro_usd: 0, reserved_micro_usd: MAX_HOLD, asset_available: false, receipt: null, provenance: null, error: null });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(g.h.ctx.config.media.video_max_job_secs * 1000);
    // The longest duration (12 s) is held, not the 4 asked for.
    expect(balance(g)).toMatchObject({ balance_micro_usd: CREDIT, held_micro_usd: MAX_HOLD });
    expect(creates(g).map((r) => r.body)).toEqual([{ model: "stand-in-video", prompt: "a red kite over the sea", seconds: "4", size: "720x1280", input_reference: null }]);

    await tick(g);
    const running = await jobOf(g, created.id);
    expect(running).toMatchObject({ status: "running", progress: 50, billed: false });

    await tick(g);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "succeeded", progress: 100, billed: true, billed_seconds: 4, cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND, asset_available: true, error: null });
    expect(done.finished_at).not.toBeNull();
    expect(Date.parse(done.expires_at) - Date.parse(done.finished_at)).toBe(g.h.ctx.config.media.video_ttl_secs * 1000);
    // Billed 4 s; the other 8 s of the hold went back.
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT - 4 * VIDEO_PRICE_PER_SECOND, held_micro_usd: 0, spendable_micro_usd: CREDIT - 4 * VIDEO_PRICE_PER_SECOND });
    const events = usageEvents(g).filter((e) => e.kind === "video");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ resource: "vid-test", cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND, reserved_micro_usd: MAX_HOLD, status: "succeeded" });

    const res = await g.h.request("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${created.id}.mp4"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const digest = sha256(bytes);
    expect(done.provenance).toMatchObject({ standard: "c2pa", sha256: digest, receipt_id: done.receipt.id, model: "vid-test", signature_valid: true, hash_matches: true });

    // The receipt: signed by the deployment, billing 4 s, binding the delivered bytes.
    const payload = await verifyReceipt(g, done.receipt.receipt, done.receipt.signature);
    expect(payload).toMatchObject({ id: done.receipt.id, kind: "video", resource: "vid-test", status: "succeeded", cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND, reserved_micro_usd: MAX_HOLD });
    expect(payload.units).toMatchObject({ job_id: created.id, seconds: 4, requested_seconds: 4, price_micro_usd_per_second: VIDEO_PRICE_PER_SECOND, size: "720x1280", image_input: false });
    expect(payload.attestations.provenance).toEqual({ standard: "c2pa", asset_sha256: [digest] });
    expect(JSON.stringify(payload)).not.toContain("red kite");

    // The content's embedded manifest: valid, bound to these bytes, citing that receipt.
    const credential = await provenanceCredential(g.h.ctx);
    const found = await readManifest(bytes, "video/mp4", credential.anchorsPem);
    expect(found).not.toBeNull();
    const check = checkManifest(found!);
    expect(check).toMatchObject({ signature_valid: true, hash_matches: true, receipt_id: done.receipt.id, model: "vid-test" });
    expect(JSON.stringify(found!.active)).not.toContain("red kite");
  });

  test("svc_provenance_prompt puts the prompt in the manifest (never in the receipt); an image makes it image-to-video", async () => {
    const g = await startMediaGateway();
    const png = Buffer.from(await Bun.file(`${import.meta.dir}/../../fixtures/media/tiny.png`).arrayBuffer()).toString("base64");
    const created = await startJob(g, { prompt: "a lighthouse at dusk", svc_provenance_prompt: true, image: `data:image/png;base64,${png}`, seconds: "8" });
    expect(created).toMatchObject({ image_input: true, seconds: 8, size: "1280x720" });
    expect(creates(g)[0]!.body).toMatchObject({ seconds: "8", size: "1280x720", input_reference: Buffer.from(png, "base64").byteLength });
    const done = await untilFinished(g, created.id);
    expect(done).toMatchObject({ status: "succeeded", billed_seconds: 8, cost_micro_usd: 8 * VIDEO_PRICE_PER_SECOND });
    const bytes = new Uint8Array(await (await g.h.request("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) })).arrayBuffer());
    const found = await readManifest(bytes, "video/mp4", (await provenanceCredential(g.h.ctx)).anchorsPem);
    expect(JSON.stringify(found!.active)).toContain("a lighthouse at dusk");
    expect(Buffer.from(done.receipt.receipt, "base64url").toString()).not.toContain("lighthouse");
    // The sealed prompt is gone once the job is finished.
    expect(g.h.ctx.db.query<{ p: string | null }, [string]>("SELECT provenance_prompt AS p FROM video_jobs WHERE id = ?").get(created.id)!.p).toBeNull();
  });

  test("the list: newest first, a list object, ?limit 1-200 (default 50), only the caller's jobs", async () => {
    const g = await startMediaGateway();
    const a = await startJob(g);
    g.h.clock.advance(1);
    const b = await startJob(g);
    const other = accountWithSession(g.h.ctx);
    g.h.ctx.ledger.credit(other.account.id, 10 * USD, { type: "deposit" });
    const otherKey = apiKeyFor(g.h.ctx, other.account.id);
    await startJob(g, {}, otherKey.token);

    const all = await g.h.json("GET", "/v1/videos/generations", { headers: auth(g.key) });
    expect(all.status).toBe(200);
    expect(all.body.object).toBe("list");
    expect(all.body.has_more).toBeUndefined();
    expect(all.body.data.map((j: any) => j.id)).toEqual([b.id, a.id]);
    const one = await g.h.json("GET", "/v1/videos/generations?limit=1", { headers: auth(g.key) });
    expect(one.body.data.map((j: any) => j.id)).toEqual([b.id]);
    expect((await g.h.json("GET", "/v1/videos/generations?limit=500", { headers: auth(g.key) })).body.data).toHaveLength(2);
    for (const bad of ["0", "x", "-1"]) expect((await g.h.json("GET", `/v1/videos/generations?limit=${bad}`, { headers: auth(g.key) })).status).toBe(400);
  });
});

describe("jobs that bill nothing", () => {
  test("a render that fails at the provider: failed, its error kept, the hold released", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[fail]] a storm" });
    const done = await untilFinished(g, created.id);
    expect(done).toMatchObject({ status: "failed", billed: false, cost_micro_usd: 0, asset_available: false, receipt: null, provenance: null, expires_at: null, error: { code: "render_failed" } });
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT, held_micro_usd: 0, spendable_micro_usd: CREDIT });
    expect(usageEvents(g).filter((e) => e.kind === "video")).toEqual([]);
    const content = await g.h.json("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(content.status).toBe(404);
    expect(content.body.error).toMatchObject({ type: "video_content_unavailable", reason: "not_produced" });
  });

  test("cancel while rendering: canceled, nothing billed; a second cancel is 409 with the status", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 5]] slow clouds" });
    await tick(g);
    expect((await jobOf(g, created.id)).status).toBe("running");
    const r = await g.h.json("POST", `/v1/videos/generations/${created.id}/cancel`, { headers: auth(g.key) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "canceled", billed: false, cost_micro_usd: 0, asset_available: false, receipt: null, error: { code: "canceled" } });
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT, held_micro_usd: 0, spendable_micro_usd: CREDIT });
    // Later polls change nothing.
    for (let i = 0; i < 6; i++) await tick(g);
    expect((await jobOf(g, created.id)).status).toBe("canceled");
    expect(balance(g).balance_micro_usd).toBe(CREDIT);
    const again = await g.h.json("POST", `/v1/videos/generations/${created.id}/cancel`, { headers: auth(g.key) });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: "video_job_finished", status: "canceled" });
  });

  test("cancel when the provider already finished: delivered and billed (billed: true)", async () => {
    const g = await startMediaGateway();
    // Completed at the 1st GET: the cancel's own look at the provider finds it done.
    const created = await startJob(g, { prompt: "[[polls 1]] quick" });
    expect(created.status).toBe("queued");
    const r = await g.h.json("POST", `/v1/videos/generations/${created.id}/cancel`, { headers: auth(g.key) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "succeeded", billed: true, billed_seconds: 4, cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND, asset_available: true });
    expect(r.body.receipt.id).toStartWith("rcpt_");
    expect(balance(g).balance_micro_usd).toBe(CREDIT - 4 * VIDEO_PRICE_PER_SECOND);
    expect(balance(g).held_micro_usd).toBe(0);
    // The poll that was scheduled finds it finished and does nothing more.
    await tick(g);
    expect(usageEvents(g).filter((e) => e.kind === "video")).toHaveLength(1);
  });

  test("past media.video_max_job_secs: expired, hold released; the last poll still asks the provider", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[never]] endless" });
    await tick(g);
    expect((await jobOf(g, created.id)).status).toBe("running");
    const getsBefore = g.media.requests.filter((r) => r.method === "GET").length;
    await tick(g, g.h.ctx.config.media.video_max_job_secs * 1000);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "expired", billed: false, cost_micro_usd: 0, expires_at: null, error: { code: "deadline_exceeded" } });
    expect(g.media.requests.filter((r) => r.method === "GET").length).toBe(getsBefore + 1);
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT, held_micro_usd: 0, spendable_micro_usd: CREDIT });
  });

  test("a render that finished in time but is polled after the deadline is still delivered", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 1]] late look" });
    // svc was not polling (say, down) until past the deadline; the hold's margin keeps it billable.
    await tick(g, g.h.ctx.config.media.video_max_job_secs * 1000 + 60_000);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "succeeded", billed: true, cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND });
  });
});

describe("the content's lifetime", () => {
  test("DELETE destroys the content; the job and its receipt remain", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g);
    const running = await g.h.json("DELETE", `/v1/videos/generations/${created.id}`, { headers: auth(g.key) });
    expect(running.status).toBe(409);
    expect(running.body.error).toMatchObject({ type: "video_job_unfinished", status: "queued" });
    const done = await untilFinished(g, created.id);
    expect(done.asset_available).toBe(true);

    const r = await g.h.json("DELETE", `/v1/videos/generations/${created.id}`, { headers: auth(g.key) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.id, status: "succeeded", billed: true, asset_available: false });
    expect(r.body.receipt).toEqual(done.receipt);
    expect(r.body.provenance).toEqual(done.provenance);
    const content = await g.h.json("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(content.status).toBe(404);
    expect(content.body.error).toMatchObject({ type: "video_content_unavailable", reason: "deleted" });
    // Idempotent; the receipt still verifies.
    expect((await g.h.json("DELETE", `/v1/videos/generations/${created.id}`, { headers: auth(g.key) })).status).toBe(200);
    expect((await jobOf(g, created.id)).receipt).toEqual(done.receipt);
    await verifyReceipt(g, done.receipt.receipt, done.receipt.signature);
  });

  test("after media.video_ttl_secs the content is gone (and the sweep destroys its file)", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g);
    const done = await untilFinished(g, created.id);
    expect(done.asset_available).toBe(true);
    const assetId = g.h.ctx.db.query<{ asset_id: string }, [string]>("SELECT asset_id FROM video_jobs WHERE id = ?").get(created.id)!.asset_id;

    await tick(g, g.h.ctx.config.media.video_ttl_secs * 1000);
    const after = await jobOf(g, created.id);
    expect(after).toMatchObject({ status: "succeeded", billed: true, asset_available: false });
    expect(after.receipt).toEqual(done.receipt);
    const content = await g.h.json("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(content.status).toBe(404);
    expect(content.body.error).toMatchObject({ type: "video_content_unavailable", reason: "expired" });
    // The minute's asset sweep ran in that tick.
    expect(g.h.ctx.db.query<{ d: number | null }, [string]>("SELECT destroyed_at AS d FROM media_assets WHERE id = ?").get(assetId)!.d).not.toBeNull();
  });

  test("content of a job still rendering: 404 not_ready", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g);
    const r = await g.h.json("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: "video_content_unavailable", reason: "not_ready" });
  });
});

describe("tenants", () => {
  test("another tenant's job answers 404 exactly like an unknown id, on every route", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g);
    await untilFinished(g, created.id);
    const other = accountWithSession(g.h.ctx);
    const otherKey = apiKeyFor(g.h.ctx, other.account.id);
    const routes: [string, string][] = [
      ["GET", ""],
      ["GET", "/content"],
      ["POST", "/cancel"],
      ["DELETE", ""],
    ];
    for (const [method, tail] of routes) {
      const theirs = await g.h.json(method, `/v1/videos/generations/${created.id}${tail}`, { headers: auth(otherKey.token) });
      const unknown = await g.h.json(method, `/v1/videos/generations/vid_doesnotexist${tail}`, { headers: auth(otherKey.token) });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
      expect(theirs.body.error.type).toBe("not_found");
    }
    expect((await g.h.json("GET", "/v1/videos/generations", { headers: auth(otherKey.token) })).body.data).toEqual([]);
    // Still the owner's, untouched.
    expect((await jobOf(g, created.id)).asset_available).toBe(true);
  });

  test("a key without the inference scope is refused", async () => {
    const g = await startMediaGateway();
    const key = apiKeyFor(g.h.ctx, g.accountId, { scopes: ["sandboxes"] });
    const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(key.token), body: { model: "vid-test", prompt: "x" } });
    expect(r.status).toBe(403);
    expect(creates(g)).toHaveLength(0);
  });
});

test("the poll interval is media.video_poll_interval_secs", async () => {
  const g = await startMediaGateway();
  expect(g.h.ctx.config.media.video_poll_interval_secs * 1000).toBe(POLL_MS);
  const created = await startJob(g, { prompt: "[[polls 3]] steady" });
  expect(created.status).toBe("queued");
  const gets = () => g.media.requests.filter((r) => r.method === "GET" && /^\/v1\/videos\/[^/]+$/.test(r.path)).length;
  const before = gets();
  await tick(g, POLL_MS - 1);
  expect(gets()).toBe(before);
  await tick(g, 1);
  expect(gets()).toBe(before + 1);
});
