/**
 * What POST /v1/videos/generations refuses before the provider hears of it (bad input, no
 * credit, a spend cap), what it does when the provider refuses, and concurrent starts competing
 * for credit: exactly as many as the balance can hold the longest duration for are accepted.
 */
import { describe, expect, test } from "bun:test";
import { apiKeyFor } from "../../support/fixtures.ts";
import { FIXTURE } from "../../support/upstream-media.ts";
import { balance, USD } from "../inference/inference-support.ts";
import { startMediaGateway, VIDEO_PRICE_PER_SECOND } from "./media-support.ts";
import { auth, creates } from "./videos-support.ts";

const MAX_HOLD = 12 * VIDEO_PRICE_PER_SECOND;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("bad input", () => {
  const cases: [string, Record<string, unknown>, number, Record<string, unknown>][] = [
    ["an unknown model", { model: "no-such-video" }, 404, { type: "model_not_found", param: "model" }],
    ["a chat model", { model: "gpt-test" }, 400, { type: "invalid_request", param: "model" }],
    ["an image model", { model: "img-test" }, 400, { type: "invalid_request", param: "model" }],
    ["seconds the model does not offer", { seconds: 5 }, 400, { type: "invalid_request", param: "seconds" }],
    ["seconds as a string it does not offer", { seconds: "16" }, 400, { type: "invalid_request", param: "seconds" }],
    ["seconds that are not a number", { seconds: "four" }, 400, {}],
    ["a size the model does not offer", { size: "1024x1024" }, 400, { type: "invalid_request", param: "size" }],
    ["an image that is not base64", { image: "not base64 at all!" }, 400, { type: "invalid_request", param: "image" }],
    ["an image that is not an image", { image: b64(new TextEncoder().encode("plain text, not pixels")) }, 400, { type: "invalid_request", param: "image" }],
    ["a data: URL of a video", { image: `data:video/mp4;base64,${b64(FIXTURE.mp4)}` }, 400, { type: "invalid_request", param: "image" }],
    ["a data: URL without base64", { image: "data:image/png,rawpixels" }, 400, { type: "invalid_request", param: "image" }],
    ["an empty prompt", { prompt: "" }, 400, {}],
    ["an unknown field", { quality: "high" }, 400, {}],
  ];
  for (const [what, over, status, error] of cases) {
    test(`${what}: ${status}, nothing held, nothing sent`, async () => {
      const g = await startMediaGateway();
      const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(g.key), body: { model: "vid-test", prompt: "a field of wheat", ...over } });
      expect(r.status).toBe(status);
      expect(r.body.error).toMatchObject(error);
      expect(creates(g)).toHaveLength(0);
      expect(balance(g).held_micro_usd).toBe(0);
    });
  }

  test("a JPEG first frame as bare base64 is accepted", async () => {
    const g = await startMediaGateway();
    const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(g.key), body: { model: "vid-test", prompt: "pan left", image: b64(FIXTURE.jpeg) } });
    expect(r.status).toBe(202);
    expect(r.body.image_input).toBe(true);
    expect(creates(g)[0]!.body!.input_reference).toBe(FIXTURE.jpeg.byteLength);
  });
});

describe("money before the provider", () => {
  test("credit for the asked duration but not the longest: 402 insufficient_credit, nothing sent", async () => {
    const g = await startMediaGateway({ credit: MAX_HOLD - 1 });
    const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(g.key), body: { model: "vid-test", prompt: "short", seconds: 4 } });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect(creates(g)).toHaveLength(0);
    expect(balance(g)).toEqual({ balance_micro_usd: MAX_HOLD - 1, held_micro_usd: 0, spendable_micro_usd: MAX_HOLD - 1 });
  });

  test("a key's monthly cap below the hold: 402 spend_cap_reached, nothing sent", async () => {
    const g = await startMediaGateway();
    const capped = apiKeyFor(g.h.ctx, g.accountId, { monthlyCap: MAX_HOLD - 1 });
    const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(capped.token), body: { model: "vid-test", prompt: "capped" } });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("spend_cap_reached");
    expect(creates(g)).toHaveLength(0);
  });

  test("a provider that cannot be reached: its error answered, the hold released, no job", async () => {
    const g = await startMediaGateway();
    g.media.stop();
    const r = await g.h.json("POST", "/v1/videos/generations", { headers: auth(g.key), body: { model: "vid-test", prompt: "nobody home" } });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ type: "upstream_unavailable", provider: "vid" });
    expect(balance(g)).toEqual({ balance_micro_usd: 100 * USD, held_micro_usd: 0, spendable_micro_usd: 100 * USD });
    expect((await g.h.json("GET", "/v1/videos/generations", { headers: auth(g.key) })).body.data).toEqual([]);
  });

  test("concurrent starts with credit for three holds: exactly three accepted, the balance never below zero", async () => {
    const g = await startMediaGateway({ credit: 3 * MAX_HOLD + MAX_HOLD / 2 });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => g.h.json("POST", "/v1/videos/generations", { headers: auth(g.key), body: { model: "vid-test", prompt: `race ${i}`, seconds: 4 } })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 202, 202, 402, 402, 402, 402, 402]);
    for (const a of answers.filter((x) => x.status === 402)) expect(a.body.error.type).toBe("insufficient_credit");
    expect(creates(g)).toHaveLength(3);
    const b = balance(g);
    expect(b.held_micro_usd).toBe(3 * MAX_HOLD);
    expect(b.spendable_micro_usd).toBe(MAX_HOLD / 2);
    expect(b.spendable_micro_usd).toBeGreaterThanOrEqual(0);
  });
});
