/**
 * POST /v1/images/generations through a real server with the official openai SDK, against the
 * stand-in media provider: billed per image with a verifiable receipt, each image carrying a
 * C2PA manifest that the C2PA reference implementation reads back, refusals that bill nothing,
 * and GET /v1/images/models.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readManifest } from "../../../src/domains/media/provenance/c2pa.ts";
import { sniffFormat } from "../../../src/domains/media/provenance/formats.ts";
import { checkManifest, SVC_ASSERTION, TRAINED_ALGORITHMIC_MEDIA } from "../../../src/domains/media/provenance/manifest.ts";
import { provenanceCredential } from "../../../src/domains/media/signing.ts";
import { receiptFromHeaders, USD } from "../inference/inference-support.ts";
import { IMAGE_PRICE, startMediaGateway } from "./media-support.ts";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

describe("generation", () => {
  test("the openai SDK gets n images, billed n × price, each with an embedded C2PA manifest citing the receipt that binds its sha256", async () => {
    const g = await startMediaGateway();
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const { data, response } = await g.openai.images.generate({ model: "img-test", prompt: "a lighthouse at dusk", n: 2, size: "512x512" }).withResponse();
    expect(data.data).toHaveLength(2);
    const receipt = await receiptFromHeaders(g, response.headers);
    expect(receipt.kind).toBe("image");
    expect(receipt.resource).toBe("img-test");
    expect(receipt.cost_micro_usd).toBe(2 * IMAGE_PRICE);
    expect(receipt.units.images).toBe(2);
    expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(before - 2 * IMAGE_PRICE);

    const credential = await provenanceCredential(g.h.ctx);
    const hashes: string[] = [];
    for (const item of data.data!) {
      const bytes = b64(item.b64_json!);
      expect(sniffFormat(bytes)).toBe("image/png");
      hashes.push(sha256(bytes));
      const found = await readManifest(bytes, "image/png", credential.anchorsPem);
      expect(found).not.toBeNull();
      const check = checkManifest(found!);
      expect(check).toMatchObject({ signature_valid: true, hash_matches: true, trusted: true, receipt_id: receipt.id, model: "img-test", failures: [] });
      const assertions = found!.active.assertions as { label: string; data: any }[];
      const actions = assertions.find((a) => a.label.startsWith("c2pa.actions"))!.data.actions;
      expect(actions[0]).toMatchObject({ action: "c2pa.created", digitalSourceType: TRAINED_ALGORITHMIC_MEDIA });
      // Nothing of the prompt unless asked for.
      expect(JSON.stringify(found!.active)).not.toContain("lighthouse");
      expect(assertions.find((a) => a.label === SVC_ASSERTION)!.data.prompt).toBeUndefined();
      expect((item as any).svc_provenance).toMatchObject({ standard: "c2pa", sha256: sha256(bytes), receipt_id: receipt.id, format: "image/png" });
    }
    expect(receipt.attestations.provenance.asset_sha256).toEqual(hashes);
    // The provider was asked for the upstream name and size; the key never appears in what svc returns.
    expect(g.media.requests[0]!.body).toMatchObject({ model: "stand-in-image", prompt: "a lighthouse at dusk", n: 2, size: "512x512" });
    expect(JSON.stringify(data)).not.toContain("sk-upstream");
  });

  test("svc_provenance_prompt puts the prompt in the manifest; a JPEG keeps its format", async () => {
    const g = await startMediaGateway();
    const r = await g.h.json("POST", "/v1/images/generations", { headers: { authorization: `Bearer ${g.key}` }, body: { model: "img-test", prompt: "[[jpeg]] a red kite", svc_provenance_prompt: true } });
    expect(r.status).toBe(200);
    const bytes = b64(r.body.data[0].b64_json);
    expect(sniffFormat(bytes)).toBe("image/jpeg");
    const found = await readManifest(bytes, "image/jpeg", (await provenanceCredential(g.h.ctx)).anchorsPem);
    const ours = (found!.active.assertions as { label: string; data: any }[]).find((a) => a.label === SVC_ASSERTION)!.data;
    expect(ours.prompt).toBe("[[jpeg]] a red kite");
    expect(r.body.usage).toEqual({ images: 1, cost_micro_usd: IMAGE_PRICE });
  });

  test("response_format url: a public URL serves the signed image until media.image_url_ttl_secs", async () => {
    const g = await startMediaGateway();
    const data = await g.openai.images.generate({ model: "img-test", prompt: "[[url]] a fox", response_format: "url" });
    const url = new URL(data.data![0]!.url!);
    expect(url.pathname).toMatch(/^\/v1\/images\/content\/[A-Za-z0-9_-]{20,}$/);
    const r = await g.h.request("GET", url.pathname);
    expect(r.status).toBe(200);
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(sha256(bytes)).toBe((data.data![0] as any).svc_provenance.sha256);
    // The image URL was fetched without the provider credential.
    expect(g.media.requests.find((q) => q.path.startsWith("/files/"))!.authorization).toBeNull();
    g.h.clock.advance(g.h.ctx.config.media.image_url_ttl_secs * 1000);
    expect((await g.h.request("GET", url.pathname)).status).toBe(404);
    expect((await g.h.request("GET", "/v1/images/content/not-a-real-token-000000")).status).toBe(404);
  });
});

describe("refusals bill nothing", () => {
  const bad: [string, Record<string, unknown>, number, string][] = [
    ["unknown model", { model: "nope", prompt: "x" }, 404, "model_not_found"],
    ["a chat model", { model: "gpt-test", prompt: "x" }, 400, "model"],
    ["n above the model's max_images", { model: "img-test", prompt: "x", n: 5 }, 400, "n"],
    ["a size the model does not list", { model: "img-test", prompt: "x", size: "333x333" }, 400, "size"],
    ["no prompt", { model: "img-test" }, 400, "prompt"],
    ["an unknown field", { model: "img-test", prompt: "x", colour: "red" }, 400, "colour"],
  ];
  for (const [name, body, status, mention] of bad) {
    test(name, async () => {
      const g = await startMediaGateway();
      const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
      const r = await g.h.json("POST", "/v1/images/generations", { headers: { authorization: `Bearer ${g.key}` }, body });
      expect(r.status).toBe(status);
      expect(JSON.stringify(r.body)).toContain(mention);
      expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(before);
      expect(g.media.requests).toEqual([]);
    });
  }

  test("a provider failure releases the hold: nothing billed, the upstream error passed on", async () => {
    const g = await startMediaGateway();
    const before = g.h.ctx.ledger.balance(g.accountId);
    const r = await g.post("/v1/images/generations", { model: "img-test", prompt: "[[fail]]" });
    expect(r.status).toBe(502);
    const after = g.h.ctx.ledger.balance(g.accountId);
    expect(after.balance_micro_usd).toBe(before.balance_micro_usd);
    expect(after.held_micro_usd).toBe(0);
  });

  test("credit short of n × price: 402, nothing sent to the provider", async () => {
    const g = await startMediaGateway({ credit: IMAGE_PRICE });
    const r = await g.post("/v1/images/generations", { model: "img-test", prompt: "two please", n: 2 });
    expect(r.status).toBe(402);
    expect(g.media.requests).toEqual([]);
    const ok = await g.post("/v1/images/generations", { model: "img-test", prompt: "one please", n: 1 });
    expect(ok.status).toBe(200);
    expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(0);
  });

  test("concurrent requests never spend credit the account does not have", async () => {
    const g = await startMediaGateway({ credit: 3 * IMAGE_PRICE });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => g.post("/v1/images/generations", { model: "img-test", prompt: `[[slow 50]] n${i}` })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(5);
    const b = g.h.ctx.ledger.balance(g.accountId);
    expect(b.balance_micro_usd).toBe(0);
    expect(b.held_micro_usd).toBe(0);
  });
});

describe("GET /v1/images/models and /v1/videos/models", () => {
  test("list objects with per-image and per-second prices and the options; chat models stay in /v1/models only", async () => {
    const g = await startMediaGateway();
    const images = await g.h.json("GET", "/v1/images/models");
    expect(images.status).toBe(200);
    expect(images.body).toEqual({
      object: "list",
      data: [{ id: "img-test", object: "model", created: expect.any(Number), owned_by: "svc", provider: "img", type: "image", pricing: { price_micro_usd_per_image: IMAGE_PRICE }, sizes: ["1024x1024", "512x512"], aspect_ratios: ["1:1"], max_images: 4 }],
    });
    const videos = await g.h.json("GET", "/v1/videos/models");
    expect(videos.body.data).toEqual([expect.objectContaining({ id: "vid-test", type: "video", pricing: { price_micro_usd_per_second: 100_000 }, durations: [4, 8, 12], max_seconds: 12, sizes: ["1280x720", "720x1280"] })]);
    const models = await g.h.json("GET", "/v1/models");
    expect(models.body.data.map((m: any) => m.id)).not.toContain("img-test");
    expect(models.body.data.map((m: any) => m.id)).not.toContain("vid-test");
  });

  test("empty until a media provider is enabled", async () => {
    const { startGateway } = await import("../inference/inference-support.ts");
    const g = await startGateway();
    expect((await g.h.json("GET", "/v1/images/models")).body).toEqual({ object: "list", data: [] });
    expect((await g.h.json("GET", "/v1/videos/models")).body).toEqual({ object: "list", data: [] });
    void USD;
  });
});
