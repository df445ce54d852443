/**
 * The model catalogue: svc.toml validation of providers[] and models[], GET /v1/models (envelope,
 * pricing, omission of models no configured provider serves), hot reload on the same running
 * app (including a file that turns invalid), the pricing math, and `svc models` through the
 * compiled binary.
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { writeConfigFile } from "../../../src/config.ts";
import { loadConfig } from "../../../src/open.ts";
import type { ModelConfig, ProviderConfig } from "../../../src/domains/inference/config.ts";
import { ApiError } from "../../../src/core/errors.ts";
import { createLogger } from "../../../src/core/log.ts";
import { CHECK_INTERVAL_MS, saveCatalog } from "../../../src/domains/inference/catalog.ts";
import {
  costOf,
  countPromptTokens,
  estimateChat,
  estimateEmbedding,
  type PricedModel,
  TOKENS_PER_IMAGE,
  usageFromAnthropic,
  usageFromOpenAI,
  usageFromResponses,
} from "../../../src/domains/inference/pricing.ts";
import { runSvc, svcBinary } from "../../support/binary.ts";
import { configRefusal } from "../../support/config.ts";
import { type Harness, makeHarness, tempDir } from "../../support/harness.ts";
import { startUpstream } from "../../support/upstream.ts";

// A key for the "oa" provider in this process's environment; "off" names a variable nobody sets.
process.env.SVC_TEST_MODELS_OA_KEY = "sk-models-test-0123456789";

const oa: ProviderConfig = { name: "oa", kind: "openai", base_url: "http://127.0.0.1:9/v1", api_key_env: "SVC_TEST_MODELS_OA_KEY", regions: ["us"], privacy_tiers: ["standard"], timeout_secs: 30, supports_responses: false };
const off: ProviderConfig = { ...oa, name: "off", api_key_env: "SVC_TEST_MODELS_NEVER_SET" };
const local: ProviderConfig = { name: "local", kind: "openai", base_url: "http://127.0.0.1:9/v1", regions: [], privacy_tiers: ["confidential"], timeout_secs: 30, supports_responses: false };

function model(id: string, over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    id,
    provider: "oa",
    upstream: `${id}-upstream`,
    type: "chat",
    input_micro_usd_per_mtok: 150_000,
    output_micro_usd_per_mtok: 600_000,
    context_length: 128_000,
    max_output: 16_384,
    modalities: ["text"],
    fallback_providers: [],
    ...over,
  };
}

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;

describe("svc.toml: providers and models", () => {
  const dir = tempDir();
  const file = join(dir, "svc.toml");
  const refused = configRefusal(dir);

  const P = (extra = "", name = "oa") => `[[providers]]\nname = "${name}"\nkind = "openai"\nbase_url = "https://api.example/v1"\n${extra}\n`;
  const M = (extra = "", id = "m1", provider = "oa") =>
    `[[models]]\nid = "${id}"\nprovider = "${provider}"\nupstream = "up"\ninput_micro_usd_per_mtok = 1\noutput_micro_usd_per_mtok = 2\n${extra}\n`;

  test("defaults fill what an entry leaves out", () => {
    writeFileSync(file, P() + M());
    const c = loadConfig({ dataDir: dir }, {});
    expect(c.providers).toEqual([{ name: "oa", kind: "openai", base_url: "https://api.example/v1", regions: [], privacy_tiers: ["standard"], timeout_secs: 600, supports_responses: false }]);
    expect(c.models).toEqual([{ id: "m1", provider: "oa", upstream: "up", type: "chat", input_micro_usd_per_mtok: 1, output_micro_usd_per_mtok: 2, modalities: ["text"], fallback_providers: [] }]);
  });

  test("bad kinds, unknown providers, duplicates, non-integer prices and contradictions are refused with where and why", () => {
    expect(refused(P('kind = "cohere"').replace('kind = "openai"\n', ""))).toContain("providers[0] (oa).kind: must be one of openai, anthropic");
    expect(refused(P() + M("", "m1", "nope"))).toContain('models (m1): provider "nope" is not configured (providers: oa)');
    expect(refused(P() + M() + M())).toContain('two models have the id "m1"');
    expect(refused(P() + P())).toContain('two providers are named "oa"');
    expect(refused(P() + M().replace("input_micro_usd_per_mtok = 1", "input_micro_usd_per_mtok = 1.5"))).toContain("models[0] (m1).input_micro_usd_per_mtok: Expected integer");
    expect(refused(P() + M().replace("output_micro_usd_per_mtok = 2", "output_micro_usd_per_mtok = -2"))).toContain("models[0] (m1).output_micro_usd_per_mtok");
    expect(refused(P() + M().replace("input_micro_usd_per_mtok = 1", 'input_micro_usd_per_mtok = "1"'))).toContain("input_micro_usd_per_mtok");
    expect(refused(P('api_key_env = "A"\napi_key_sealed = "v1.0a1b2c3d.AAAA"'))).toContain("give api_key_env or api_key_sealed, not both");
    expect(refused(P('privacy_tiers = ["secret"]'))).toContain("privacy_tiers.0: must be one of standard, zero_retention, confidential");
    expect(refused(P("timeout_secs = 0"))).toContain("timeout_secs");
    expect(refused(P("supports_responses = true").replace('"openai"', '"anthropic"'))).toContain("supports_responses applies to the openai kind only");
    expect(refused(P('[providers.headers]\nx-api-key = "k"'))).toContain("headers may not set x-api-key");
    expect(refused(P().replace('"openai"', '"anthropic"') + M('type = "embedding"'))).toContain("which serves no embedding models");
    expect(refused(P() + M('fallback_providers = ["ghost"]'))).toContain('provider "ghost" is not configured');
    expect(refused(P() + M('fallback_providers = ["oa"]'))).toContain("fallback_providers repeat a provider");
    expect(refused(P() + M('colour = "red"'))).toContain("models[0] (m1).colour: Unexpected property");
    expect(refused(P() + M('modalities = ["smell"]'))).toContain("modalities.0: must be one of text, image");
    expect(refused(P().replace('name = "oa"', 'name = "Has Space"'))).toContain("providers[0] (Has Space).name");
    expect(refused('providers = "none"')).toContain("providers: expected an array of tables");
  });
});

describe("GET /v1/models", () => {
  test("the list object with pricing; models no available provider serves are omitted; a fallback keeps a model listed", async () => {
    h = makeHarness({
      config: (c) => {
        c.providers = [oa, off, local];
        c.models = [
          model("gpt-mini", { cached_input_micro_usd_per_mtok: 75_000, modalities: ["text", "image"], created: 1_700_000_000 }),
          model("stranded", { provider: "off" }),
          model("rescued", { provider: "off", fallback_providers: ["local", "oa"] }),
          model("unpriced", { input_micro_usd_per_mtok: undefined, output_micro_usd_per_mtok: undefined, max_output: undefined, context_length: undefined }),
          model("embed", { type: "embedding", output_micro_usd_per_mtok: undefined, max_output: undefined, context_length: 8191 }),
        ];
      },
    });
    const r = await h.json("GET", "/v1/models");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["object", "data"]);
    expect(r.body.object).toBe("list");
    expect(r.body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-mini", "rescued", "unpriced", "embed"]);
    expect(r.body.data[0]).toEqual({
      id: "gpt-mini",
      object: "model",
      created: 1_700_000_000,
      owned_by: "svc",
      provider: "oa",
      type: "chat",
      pricing: { input_micro_usd_per_mtok: 150_000, output_micro_usd_per_mtok: 600_000, cached_input_micro_usd_per_mtok: 75_000 },
      context_length: 128_000,
      max_output: 16_384,
      modalities: ["text", "image"],
    });
    // Its own provider is unavailable; the first available fallback serves it (a keyless local provider is available).
    expect(r.body.data[1]).toMatchObject({ id: "rescued", provider: "local" });
    expect(r.body.data[2]).toMatchObject({ pricing: { input_micro_usd_per_mtok: null, output_micro_usd_per_mtok: null, cached_input_micro_usd_per_mtok: null }, context_length: null, max_output: null });
    expect(r.body.data[3]).toMatchObject({ type: "embedding", created: Math.floor(h.clock.now() / 1000) });
    // Nothing about upstream names or credentials.
    expect(JSON.stringify(r.body)).not.toContain("upstream");
    expect(JSON.stringify(r.body)).not.toContain(process.env.SVC_TEST_MODELS_OA_KEY!);
    // The public route is in the OpenAPI document.
    const doc = await h.json("GET", "/openapi.json");
    expect(doc.body.paths["/v1/models"].get).toBeDefined();
  });

  test("an empty catalogue is an empty list", async () => {
    h = makeHarness();
    expect((await h.json("GET", "/v1/models")).body).toEqual({ object: "list", data: [] });
  });
});

describe("hot reload", () => {
  const ids = async () => ((await h.json("GET", "/v1/models")).body.data as { id: string }[]).map((m) => m.id);

  test("a change to svc.toml shows on the same running app once the (1 s) check is due; an invalid file keeps the last good catalogue", async () => {
    const lines: string[] = [];
    h = makeHarness({ log: createLogger("debug", (l) => lines.push(l)) });
    const path = h.ctx.config.config_path;
    expect(await ids()).toEqual([]);

    saveCatalog(path, { providers: [oa], models: [model("first")] });
    expect(await ids()).toEqual([]); // not checked yet: at most once per interval
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual(["first"]);
    expect(lines.some((l) => l.includes("inference catalogue reloaded"))).toBe(true);

    // Valid TOML, invalid catalogue (a model on an unknown provider): refused, logged once, the last good one serves.
    writeConfigFile(path, { models: [model("first"), model("orphan", { provider: "ghost" })] });
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual(["first"]);
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual(["first"]);
    const warnings = lines.filter((l) => l.includes("keeping the last good inference catalogue"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('provider \\"ghost\\" is not configured');

    // Not TOML at all: same.
    writeFileSync(path, "this is [not toml");
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual(["first"]);
    expect(lines.filter((l) => l.includes("keeping the last good")).at(-1)).toContain("not valid TOML");

    // Fixed: picked up.
    writeFileSync(path, "");
    saveCatalog(path, { providers: [oa, off], models: [model("first"), model("second"), model("hidden", { provider: "off" })] });
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual(["first", "second"]);

    // Removing a provider takes its models out of the list.
    saveCatalog(path, { providers: [off], models: [model("hidden", { provider: "off" })] });
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(await ids()).toEqual([]);
    expect(h.ctx.catalog.current().model("hidden")).toBeDefined();
  });

  test("a snapshot taken by a request stays whole while the file changes under it", () => {
    h = makeHarness();
    saveCatalog(h.ctx.config.config_path, { providers: [oa], models: [model("a")] });
    h.clock.advance(CHECK_INTERVAL_MS);
    const snapshot = h.ctx.catalog.current();
    saveCatalog(h.ctx.config.config_path, { providers: [oa], models: [model("b")] });
    h.clock.advance(CHECK_INTERVAL_MS);
    expect(h.ctx.catalog.current().model("b")).toBeDefined();
    expect([...snapshot.models.keys()]).toEqual(["a"]);
    expect(snapshot.provider("oa")!.adapter.name).toBe("oa");
  });
});

describe("pricing", () => {
  const m: PricedModel = { id: "m", type: "chat", input_micro_usd_per_mtok: 150_000, output_micro_usd_per_mtok: 600_000, max_output: 50, context_length: 1000 };
  const tok = (s: string) => encode(s).length;
  /** The documented prompt formula, written out: ⌈counted × 1.1⌉ + 4 per message + 3. */
  const prompt = (counted: number, messages: number) => Math.ceil((counted * 110) / 100) + 4 * messages + 3;

  test("estimateChat: exact micro-USD, rounded up once; max_tokens capped at max_output; max_output when absent; n multiplies", () => {
    const body = { messages: [{ role: "user", content: "Hello there" }], max_tokens: 100 };
    const p = prompt(tok("Hello there"), 1);
    const e = estimateChat(m, body);
    expect(e.promptTokens).toBe(p);
    expect(e.outputTokens).toBe(50); // capped
    expect(e.amount).toBe(Math.ceil((p * 150_000 + 50 * 600_000) / USD));
    expect(estimateChat(m, { ...body, max_tokens: 20 }).outputTokens).toBe(20);
    expect(estimateChat(m, { ...body, max_tokens: undefined, max_completion_tokens: 7 }).outputTokens).toBe(7);
    expect(estimateChat(m, { messages: body.messages }).outputTokens).toBe(50);
    expect(estimateChat(m, { ...body, n: 3 }).outputTokens).toBe(150);
    // Without max_output the context window bounds the output; with neither, the request must say.
    expect(estimateChat({ ...m, max_output: undefined }, { messages: body.messages }).outputTokens).toBe(1000 - p);
    const unbounded = (() => {
      try {
        estimateChat({ ...m, max_output: undefined, context_length: undefined }, { messages: body.messages });
      } catch (err) {
        return err as ApiError;
      }
    })();
    expect(unbounded).toMatchObject({ status: 400, type: "invalid_request", extra: { param: "max_tokens" } });
    for (const bad of [0, 1.5, "10", -1]) expect(() => estimateChat(m, { ...body, max_tokens: bad })).toThrow(/max_tokens: must be a positive integer/);
  });

  test("what the prompt count covers: system prompts, content parts, tools' schemas, images at a fixed allowance, all three shapes", () => {
    const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const openai = { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "data:image/png;base64," + "A".repeat(50_000) } }] }], tools };
    expect(countPromptTokens(openai)).toBe(prompt(tok("Be brief.") + tok("What is this?") + tok(JSON.stringify(tools)), 2) + TOKENS_PER_IMAGE);
    const anthropic = { system: "Be brief.", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }], max_tokens: 10 };
    expect(countPromptTokens(anthropic)).toBe(prompt(tok("Be brief.") + tok("Hi"), 2) + TOKENS_PER_IMAGE);
    const responses = { instructions: "Be kind", input: "Tell me a story", max_output_tokens: 5 };
    expect(countPromptTokens(responses)).toBe(prompt(tok("Be kind") + tok("Tell me a story"), 2));
    expect(estimateChat(m, responses).outputTokens).toBe(5);
    // Special-token text in a prompt is plain text, not an error.
    expect(countPromptTokens({ messages: [{ role: "user", content: "<|endoftext|>" }] })).toBeGreaterThan(0);
  });

  test("the reservation covers what the stub (real token counts) reports for the same request", async () => {
    const stub = startUpstream();
    const body = { model: "m", messages: [{ role: "system", content: "You are a careful assistant." }, { role: "user", content: "Summarise the history of the printing press in two lines." }], max_tokens: 40 };
    const res = (await (await fetch(`${stub.openaiBaseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as { usage: Record<string, unknown> };
    const estimate = estimateChat(m, body);
    expect(estimate.promptTokens).toBeGreaterThanOrEqual(res.usage.prompt_tokens as number);
    expect(estimate.amount).toBeGreaterThanOrEqual(costOf(m, usageFromOpenAI(res.usage)));
  });

  test("costOf: exact, cache reads at their price (input price when unset), one rounding up, never 0 for use", () => {
    const priced: PricedModel = { ...m, input_micro_usd_per_mtok: 3_000_000, output_micro_usd_per_mtok: 15_000_000, cached_input_micro_usd_per_mtok: 300_000 };
    expect(costOf(priced, { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 200 })).toBe(600 * 3 + 400 * 0.3 + 200 * 15);
    expect(costOf({ ...priced, cached_input_micro_usd_per_mtok: undefined }, { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 0 })).toBe(3000);
    expect(costOf(m, { input_tokens: 7, output_tokens: 3 })).toBe(3); // 1.05 + 1.8 = 2.85 → 3 (not 2 + 2)
    expect(costOf(m, { input_tokens: 1, output_tokens: 0 })).toBe(1); // 0.15 → 1, never 0
    expect(costOf(m, { input_tokens: 0, output_tokens: 0 })).toBe(0);
    expect(() => costOf(m, { input_tokens: -1, output_tokens: 0 })).toThrow(RangeError);
  });

  test("fail closed: a model without prices is refused with 503 not_priced, for estimates and costs", () => {
    const unpriced: PricedModel = { ...m, input_micro_usd_per_mtok: undefined };
    for (const f of [() => estimateChat(unpriced, { messages: [] }), () => costOf(unpriced, { input_tokens: 1, output_tokens: 1 }), () => estimateEmbedding({ ...unpriced, type: "embedding" }, { input: "x" })]) {
      expect(f).toThrow(ApiError);
      try {
        f();
      } catch (err) {
        expect(err).toMatchObject({ status: 503, type: "not_priced" });
      }
    }
    expect(() => estimateChat({ ...m, output_micro_usd_per_mtok: undefined }, { messages: [] })).toThrow(/no price configured/);
  });

  test("embeddings: strings through the tokenizer with the margin, token ids at their length; billed by input", () => {
    const e: PricedModel = { id: "e", type: "embedding", input_micro_usd_per_mtok: 20_000 };
    const est = estimateEmbedding(e, { input: ["alpha beta", "gamma"] });
    expect(est.inputTokens).toBe(Math.ceil(((tok("alpha beta") + tok("gamma")) * 110) / 100));
    expect(estimateEmbedding(e, { input: [[1, 2, 3], [4]] }).inputTokens).toBe(4);
    expect(estimateEmbedding(e, { input: [5, 6, 7] }).inputTokens).toBe(3);
    expect(estimateEmbedding(e, { input: "x".repeat(10) }).amount).toBe(1);
    expect(() => estimateEmbedding(e, { input: { text: "x" } })).toThrow(/input/);
    expect(costOf(e, { input_tokens: 1_000_000, output_tokens: 0 })).toBe(20_000);
  });

  test("usage from each upstream's report, cached tokens inside input_tokens", () => {
    expect(usageFromOpenAI({ prompt_tokens: 100, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 40 } })).toEqual({ input_tokens: 100, output_tokens: 20, cached_input_tokens: 40 });
    expect(usageFromOpenAI({ prompt_tokens: 9, total_tokens: 9 })).toEqual({ input_tokens: 9, output_tokens: 0, cached_input_tokens: 0 });
    expect(usageFromResponses({ input_tokens: 50, output_tokens: 5, input_tokens_details: { cached_tokens: 10 } })).toEqual({ input_tokens: 50, output_tokens: 5, cached_input_tokens: 10 });
    expect(usageFromAnthropic({ input_tokens: 30, cache_read_input_tokens: 60, cache_creation_input_tokens: 10, output_tokens: 7 })).toEqual({ input_tokens: 100, output_tokens: 7, cached_input_tokens: 60 });
    expect(usageFromAnthropic(null)).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
  });
});

describe("svc models (compiled binary)", () => {
  beforeAll(async () => {
    await svcBinary();
  }, 120_000);

  test("add, list, remove round trip, picked up by a running app without a restart", async () => {
    h = makeHarness();
    const svc = (...args: string[]) => runSvc([...args, "--data-dir", h.dir]);
    expect((await svc("providers", "add", "oa", "--kind", "openai", "--base-url", "https://api.example/v1", "--api-key-env", "SVC_TEST_MODELS_OA_KEY")).code).toBe(0);
    const added = await svc("models", "add", "gpt-mini", "--provider", "oa", "--upstream", "gpt-4o-mini", "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--cached-input-micro-usd-per-mtok", "75000", "--max-output", "16384", "--context-length", "128000", "--modality", "text", "--modality", "image");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("added model gpt-mini (chat on oa as gpt-4o-mini; input 150000 ($0.15/Mtok); output 600000 ($0.60/Mtok); cached input 75000 ($0.075/Mtok)");
    expect(added.stdout).toContain("a running svc picks this up within 1 s (no restart needed)");
    const embed = await svc("models", "add", "embed", "--provider", "oa", "--upstream", "text-embedding-3-small", "--type", "embedding", "--input-micro-usd-per-mtok", "20000");
    expect(embed.code).toBe(0);

    h.clock.advance(CHECK_INTERVAL_MS);
    const listed = await h.json("GET", "/v1/models");
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-mini", "embed"]);
    expect(listed.body.data[0]).toMatchObject({ provider: "oa", pricing: { input_micro_usd_per_mtok: 150_000, output_micro_usd_per_mtok: 600_000, cached_input_micro_usd_per_mtok: 75_000 }, modalities: ["text", "image"] });
    expect(listed.body.data[0].created).toBeGreaterThan(1_700_000_000);

    const list = await svc("models", "list");
    expect(list.stdout).toContain("gpt-mini (chat on oa as gpt-4o-mini;");
    expect(list.stdout).toContain("embed (embedding on oa as text-embedding-3-small; input 20000 ($0.02/Mtok); modalities text)");
    const json = JSON.parse((await svc("models", "list", "--json")).stdout);
    expect(json.map((m: ModelConfig) => [m.id, m.type, m.input_micro_usd_per_mtok])).toEqual([
      ["gpt-mini", "chat", 150_000],
      ["embed", "embedding", 20_000],
    ]);

    const clash = await svc("models", "add", "gpt-mini", "--provider", "oa", "--upstream", "x", "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1");
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("--replace");
    const created = json[0].created;
    const replaced = await svc("models", "add", "gpt-mini", "--provider", "oa", "--upstream", "gpt-4o-mini", "--input-micro-usd-per-mtok", "200000", "--output-micro-usd-per-mtok", "800000", "--replace");
    expect(replaced.stdout).toContain("changed model gpt-mini");
    expect(replaced.stdout).toContain("note: with no --max-output, requests must set max_tokens");
    expect(loadConfig({ dataDir: h.dir }, {}).models[0]).toMatchObject({ input_micro_usd_per_mtok: 200_000, created });

    const removed = await svc("models", "remove", "embed");
    expect(removed.code).toBe(0);
    h.clock.advance(CHECK_INTERVAL_MS);
    expect((await h.json("GET", "/v1/models")).body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-mini"]);
    const unknown = await svc("models", "remove", "embed");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no model embed (configured: gpt-mini)");
  }, 60_000);

  test("bad input: usage errors exit 2, refusals exit 1, and nothing changes", async () => {
    const dir = join(tempDir(), "data");
    expect((await runSvc(["setup", "--yes", "--data-dir", dir])).code).toBe(0);
    const svc = (...args: string[]) => runSvc([...args, "--data-dir", dir]);
    expect((await svc("providers", "add", "an", "--kind", "anthropic", "--base-url", "https://api.anthropic.com")).code).toBe(0);
    const base = ["models", "add", "m", "--provider", "an", "--upstream", "u"];
    const usage: string[][] = [
      [...base, "--input-micro-usd-per-mtok", "1.5", "--output-micro-usd-per-mtok", "1"],
      [...base, "--input-micro-usd-per-mtok", "-1", "--output-micro-usd-per-mtok", "1"],
      [...base, "--input-micro-usd-per-mtok", "1"],
      [...base, "--output-micro-usd-per-mtok", "1"],
      [...base, "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1", "--type", "image"],
      [...base, "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1", "--modality", "smell"],
      [...base, "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1", "--max-output", "0"],
      ["models", "add", "bad id!", "--provider", "an", "--upstream", "u", "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1"],
      ["models", "add", "m", "--upstream", "u", "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1"],
    ];
    for (const args of usage) {
      const r = await svc(...args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
    const unknownProvider = await svc("models", "add", "m", "--provider", "nope", "--upstream", "u", "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1");
    expect(unknownProvider.code).toBe(1);
    expect(unknownProvider.stderr).toContain("no provider nope (configured: an)");
    const embeddingOnAnthropic = await svc("models", "add", "e", "--provider", "an", "--upstream", "u", "--type", "embedding", "--input-micro-usd-per-mtok", "1");
    expect(embeddingOnAnthropic.code).toBe(1);
    expect(embeddingOnAnthropic.stderr).toContain("serves no embedding models");
    const badFallback = await svc(...base, "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1", "--fallback-provider", "ghost");
    expect(badFallback.code).toBe(1);
    expect(badFallback.stderr).toContain('provider "ghost" is not configured');
    expect(loadConfig({ dataDir: dir }, {}).models).toEqual([]);
  }, 60_000);
});
