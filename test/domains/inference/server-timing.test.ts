/**
 * Server-Timing on metered inference responses: `upstream` (waiting on the provider) and `svc`
 * (everything else since the request arrived) on every route, streamed or not, and for a call
 * that is not streamed `settle` (the part of `svc` spent settling), readable by the official SDKs. The stub's `slow` behaviour waits 300 ms before answering, so a call to it
 * must put at least that much on `upstream`: the split is attributed, not guessed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Gateway, startGateway, withModels } from "./inference-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startGateway({ catalog: withModels([{ id: "gpt-slow", provider: "oa", upstream: "stub-gpt@slow" }]) });
});
afterAll(() => g?.stop());

const TIMING = /^upstream;dur=(\d+\.\d{3}), svc;dur=(\d+\.\d{3})(?:, settle;dur=(\d+\.\d{3}))?$/;

function timingOf(res: Response): { upstream: number; svc: number; settle: number | null } {
  const m = TIMING.exec(res.headers.get("server-timing") ?? "");
  expect(m).not.toBeNull();
  return { upstream: Number(m![1]), svc: Number(m![2]), settle: m![3] === undefined ? null : Number(m![3]) };
}

const chat = (model: string, extra: object = {}) => ({ model, max_tokens: 20, messages: [{ role: "user", content: "hello" }], ...extra });

describe("Server-Timing", () => {
  test.each([
    ["/v1/chat/completions", chat("gpt-test")],
    ["/v1/chat/completions", chat("gpt-test", { stream: true })],
    ["/v1/messages", { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "hello" }] }],
    ["/v1/messages", { model: "claude-test", max_tokens: 20, stream: true, messages: [{ role: "user", content: "hello" }] }],
    ["/v1/responses", { model: "gpt-test", input: "hello" }],
    ["/v1/embeddings", { model: "embed-test", input: "hello" }],
  ])("%s %j carries upstream and svc durations, and settle when not streamed", async (path, body) => {
    const res = await g.post(path, body);
    expect(res.status).toBe(200);
    const t = timingOf(res);
    expect(t.upstream).toBeGreaterThanOrEqual(0);
    expect(t.svc).toBeGreaterThanOrEqual(0);
    if ((body as { stream?: boolean }).stream) {
      // Its headers leave before the upstream has finished: nothing is settled yet.
      expect(t.settle).toBeNull();
    } else {
      expect(t.settle).toBeGreaterThan(0);
      expect(t.settle!).toBeLessThanOrEqual(t.svc);
    }
    await res.arrayBuffer();
  });

  test("the provider's own wait is counted as upstream, not as svc", async () => {
    const plain = await g.post("/v1/chat/completions", chat("gpt-slow"));
    expect(plain.status).toBe(200);
    expect(timingOf(plain).upstream).toBeGreaterThanOrEqual(300);
    await plain.arrayBuffer();
    // A stream's header is written when the upstream's headers arrive: the stub's wait is before them.
    const streamed = await g.post("/v1/chat/completions", chat("gpt-slow", { stream: true }));
    expect(timingOf(streamed).upstream).toBeGreaterThanOrEqual(300);
    await streamed.arrayBuffer();
  });

  test("the official openai SDK hands it over with the response", async () => {
    const { response } = await g.openai.chat.completions.create({ model: "gpt-test", max_tokens: 20, messages: [{ role: "user", content: "hello" }] }).withResponse();
    expect(response.headers.get("server-timing")).toMatch(TIMING);
  });

  test("a refused call carries none: nothing was sent upstream", async () => {
    const res = await g.post("/v1/chat/completions", chat("no-such-model"));
    expect(res.status).toBe(404);
    expect(res.headers.get("server-timing")).toBeNull();
  });
});
