/**
 * The inference routes against their own OpenAPI entries. The SDK tests call svc over real HTTP,
 * which the harness's served-vs-declared check does not see; here every reply shape (forwarded
 * and translated, JSON and streamed) and every typed error goes through `h.request`, so each one
 * must be a status its operation declares, with a body its schema accepts
 * (test/support/openapi-check.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mintKey } from "../../../src/domains/keys/service.ts";
import type { UpstreamStub } from "../../support/upstream.ts";
import { type Gateway, PRICES, startGateway } from "./inference-support.ts";

function catalog(stub: UpstreamStub) {
  const oa = (name: string, headers: Record<string, string> = {}, extra: object = {}) => ({ name, kind: "openai" as const, base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", headers, ...extra });
  return {
    providers: [
      oa("oa", {}, { supports_responses: true }),
      oa("oa-chat"),
      { name: "an", kind: "anthropic" as const, base_url: stub.anthropicBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY" },
      oa("oa-failing", { "x-stub-behaviour": "fail" }),
      oa("oa-limited", { "x-stub-behaviour": "rate_limit", "x-stub-retry-after": "3" }),
      oa("oa-hang", { "x-stub-behaviour": "hang" }, { timeout_secs: 0.2 }),
      oa("oa-nokey", {}, { api_key_env: "SVC_TEST_UNSET_KEY_FOR_OPENAPI" }),
    ],
    models: [
      { id: "gpt-test", provider: "oa", upstream: "stub-gpt" },
      { id: "gpt-chat-only", provider: "oa-chat", upstream: "stub-gpt" },
      { id: "claude-test", provider: "an", upstream: "stub-claude" },
      { id: "embed-test", provider: "oa", upstream: "stub-embed", type: "embedding" as const, input_micro_usd_per_mtok: PRICES.embed, output_micro_usd_per_mtok: undefined },
      { id: "gpt-fail", provider: "oa-failing", upstream: "stub-gpt" },
      { id: "gpt-429", provider: "oa-limited", upstream: "stub-gpt" },
      { id: "gpt-hang", provider: "oa-hang", upstream: "stub-gpt" },
      { id: "gpt-unpriced", provider: "oa", upstream: "stub-gpt", output_micro_usd_per_mtok: undefined },
      { id: "gpt-nokey", provider: "oa-nokey", upstream: "stub-gpt" },
    ],
  };
}

let g: Gateway;
beforeAll(async () => {
  delete process.env.SVC_TEST_UNSET_KEY_FOR_OPENAPI;
  g = await startGateway({ catalog });
});
afterAll(() => g.stop());

const ask = [{ role: "user", content: "describe yourself" }];
const tools = [{ type: "function", function: { name: "lookup", description: "look something up", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } }];

/** POST through the harness (checked against the document), with the test key unless another is given. */
async function call(path: string, body: unknown, key = g.key) {
  const res = await g.h.request("POST", path, { body, headers: { authorization: `Bearer ${key}` } });
  const type = res.headers.get("content-type") ?? "";
  return { status: res.status, type, body: type.startsWith("application/json") ? ((await res.json()) as any) : await res.text() };
}

describe("replies match their documented shapes", () => {
  test("chat completions: forwarded, translated from Anthropic, with tools; JSON and text/event-stream", async () => {
    for (const model of ["gpt-test", "claude-test"]) {
      const plain = await call("/v1/chat/completions", { model, messages: ask, max_tokens: 50 });
      expect({ model, status: plain.status, object: plain.body.object }).toEqual({ model, status: 200, object: "chat.completion" });
      const tool = await call("/v1/chat/completions", { model, messages: [{ role: "user", content: "use the tool" }], tools, max_tokens: 50 });
      expect(tool.body.choices[0].message.tool_calls).toHaveLength(1);
      const streamed = await call("/v1/chat/completions", { model, messages: ask, max_tokens: 50, stream: true });
      expect(streamed.status).toBe(200);
      expect(streamed.type).toStartWith("text/event-stream");
      expect(streamed.body).toContain(": svc.receipt ");
    }
  });

  test("messages: forwarded, translated from Chat; JSON and text/event-stream", async () => {
    for (const model of ["claude-test", "gpt-test"]) {
      const plain = await call("/v1/messages", { model, max_tokens: 50, messages: ask });
      expect({ model, status: plain.status, type: plain.body.type }).toEqual({ model, status: 200, type: "message" });
      const streamed = await call("/v1/messages", { model, max_tokens: 50, messages: ask, stream: true });
      expect(streamed.type).toStartWith("text/event-stream");
    }
  });

  test("responses: forwarded to /responses, translated for a Chat-only and an Anthropic upstream; JSON and text/event-stream", async () => {
    for (const model of ["gpt-test", "gpt-chat-only", "claude-test"]) {
      const plain = await call("/v1/responses", { model, input: "describe yourself", max_output_tokens: 50 });
      expect({ model, status: plain.status, object: plain.body.object }).toEqual({ model, status: 200, object: "response" });
      const streamed = await call("/v1/responses", { model, input: "describe yourself", max_output_tokens: 50, stream: true });
      expect(streamed.type).toStartWith("text/event-stream");
    }
  });

  test("embeddings: float and base64", async () => {
    for (const encoding_format of ["float", "base64"]) {
      const r = await call("/v1/embeddings", { model: "embed-test", input: ["one", "two"], encoding_format });
      expect({ status: r.status, object: r.body.object, n: r.body.data.length }).toEqual({ status: 200, object: "list", n: 2 });
    }
  });
});

describe("typed errors are declared", () => {
  test("400 for bad input, named as the service names it", async () => {
    const cases: [string, unknown, string, string][] = [
      ["/v1/chat/completions", { model: "gpt-test", messages: [] }, "messages", "must be a non-empty array"],
      ["/v1/chat/completions", { model: "", messages: ask }, "model", "is required: a model id from GET /v1/models"],
      ["/v1/chat/completions", { model: "gpt-test", messages: ask, max_tokens: 0 }, "max_tokens", "must be a positive integer"],
      ["/v1/chat/completions", { model: "gpt-test", messages: ask, svc_privacy_tier: "secret" }, "svc_privacy_tier", "must be one of standard, zero_retention, confidential"],
      ["/v1/chat/completions", { model: "gpt-test", messages: ask, svc_run_id: "a\nb" }, "svc_run_id", "must be a string of 1-128 characters without control characters"],
      ["/v1/messages", { model: "claude-test", messages: ask }, "max_tokens", "is required: a positive integer"],
      ["/v1/responses", { model: "gpt-test", input: "x", previous_response_id: "resp_1" }, "previous_response_id", "is not supported"],
      ["/v1/embeddings", { model: "embed-test", input: [{}] }, "input", "must be a string, an array of strings, or token ids"],
    ];
    for (const [path, body, param, message] of cases) {
      const r = await call(path, body);
      expect({ path, param, status: r.status }).toEqual({ path, param: r.body.error.param, status: 400 });
      expect(r.body.error.message).toContain(message);
    }
  });

  test("402 spend_cap_reached and 403 missing_scope", async () => {
    const capped = mintKey(g.h.ctx, { accountId: g.accountId, monthlyCap: 1 }).key;
    const cap = await call("/v1/chat/completions", { model: "gpt-test", messages: ask }, capped);
    expect([cap.status, cap.body.error.type]).toEqual([402, "spend_cap_reached"]);
    const scoped = mintKey(g.h.ctx, { accountId: g.accountId, scopes: ["state"] }).key;
    const scope = await call("/v1/embeddings", { model: "embed-test", input: "x" }, scoped);
    expect([scope.status, scope.body.error.type]).toEqual([403, "missing_scope"]);
  });

  test("404 model_not_found, 429 upstream_rate_limited, 502 upstream_error, 503 not_priced and model_unavailable, 504 upstream_timeout", async () => {
    const cases: [string, unknown, number, string][] = [
      ["/v1/chat/completions", { model: "no-such-model", messages: ask }, 404, "model_not_found"],
      ["/v1/messages", { model: "no-such-model", max_tokens: 5, messages: ask }, 404, "model_not_found"],
      ["/v1/chat/completions", { model: "gpt-429", messages: ask }, 429, "upstream_rate_limited"],
      ["/v1/responses", { model: "gpt-fail", input: "x" }, 502, "upstream_error"],
      ["/v1/chat/completions", { model: "gpt-fail", messages: ask, stream: true }, 502, "upstream_error"],
      ["/v1/chat/completions", { model: "gpt-unpriced", messages: ask }, 503, "not_priced"],
      ["/v1/chat/completions", { model: "gpt-nokey", messages: ask }, 503, "model_unavailable"],
      ["/v1/messages", { model: "gpt-hang", max_tokens: 5, messages: ask }, 504, "upstream_timeout"],
    ];
    for (const [path, body, status, type] of cases) {
      const r = await call(path, body);
      expect({ path, status: r.status, type: r.body.error?.type }).toEqual({ path, status, type });
    }
  });
});
