/**
 * Provider adapters against the local upstream stub (real HTTP): what they send (auth, native
 * bodies as given), how every upstream failure maps (429 with its retry hint, 5xx, 400 with the
 * upstream's reason, timeouts, refused connections, streams cut short), and that a credential —
 * from the environment or sealed in svc.toml — never shows in an error, a log line or the CLI.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readConfigFile } from "../../../src/config.ts";
import { loadConfig } from "../../../src/open.ts";
import type { ProviderConfig } from "../../../src/domains/inference/config.ts";
import { ManualClock } from "../../../src/core/clock.ts";
import { createLogger, silentLogger } from "../../../src/core/log.ts";
import { Sealer } from "../../../src/core/seal.ts";
import { Catalog } from "../../../src/domains/inference/catalog.ts";
import { credentialAad, sealApiKey } from "../../../src/domains/inference/providers/credentials.ts";
import { DEFAULT_RETRY_AFTER_SECS, readUpstreamJson, retryAfterSecs, scrub, UpstreamError } from "../../../src/domains/inference/providers/errors.ts";
import type { ProviderAdapter } from "../../../src/domains/inference/providers/types.ts";
import { freePort, runSvc, svcBinary } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { startUpstream } from "../../support/upstream.ts";

const KEY = "sk-upstream-secret-key-5f2c9a7e31";
const stub = startUpstream({ apiKey: KEY });
const sealer = new Sealer([Sealer.generateKey()]);

function provider(over: Partial<ProviderConfig> = {}): ProviderConfig {
  return { name: "oa", kind: "openai", base_url: stub.openaiBaseUrl, api_key_env: "OA_KEY", regions: [], privacy_tiers: ["standard"], timeout_secs: 5, supports_responses: false, ...over };
}

function adapterFor(p: ProviderConfig, env: Record<string, string> = { OA_KEY: KEY, AN_KEY: KEY }, log = silentLogger): ProviderAdapter {
  const catalog = new Catalog({ providers: [p], models: [] }, { configPath: join(tempDir(), "absent.toml"), sealer, clock: new ManualClock(), log, env });
  return catalog.current().provider(p.name)!.adapter;
}

const chatBody = (model = "gpt-stub", extra: object = {}) => ({ model, messages: [{ role: "user", content: "hello adapter" }], ...extra });

/** The error a call fails with (or null), checked for the invariants every upstream error keeps. */
async function failure(p: Promise<unknown>, providerName = "oa"): Promise<UpstreamError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  const e = err as UpstreamError;
  expect(e.provider).toBe(providerName);
  expect(e.message).toContain(`provider ${providerName}`);
  const shown = JSON.stringify({ message: e.message, body: e.body(), headers: e.headers });
  expect(shown).not.toContain(KEY);
  expect(shown).not.toContain("127.0.0.1");
  expect(e.body().error).toMatchObject({ type: e.type, provider: providerName });
  return e;
}

describe("what adapters send", () => {
  test("openai: Bearer auth, the body exactly as given, configured headers; per-call headers cannot replace auth", async () => {
    const adapter = adapterFor(provider({ headers: { "X-Title": "svc-test" } }));
    expect(adapter.kind).toBe("openai");
    const body = chatBody("gpt-stub", { unknown_field: { a: 1 }, temperature: 0.2 });
    const res = await adapter.request("chat", body, { headers: { authorization: "Bearer stolen", "x-extra": "1" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe("reply to: hello adapter");
    const seen = stub.last("/v1/chat/completions")!;
    expect(seen.body).toEqual(body);
    expect(seen.headers).toMatchObject({ authorization: `Bearer ${KEY}`, "x-title": "svc-test", "x-extra": "1", "content-type": "application/json" });
  });

  test("openai: a stream comes back as the upstream's SSE, untouched", async () => {
    const res = await adapterFor(provider()).request("chat", chatBody("gpt-stub", { stream: true, stream_options: { include_usage: true } }), { stream: true });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    expect(text.trim().endsWith("data: [DONE]")).toBe(true);
    expect(text).toContain('"usage":{"prompt_tokens"');
  });

  test("anthropic: x-api-key and anthropic-version 2023-06-01 on /v1/messages", async () => {
    const adapter = adapterFor(provider({ name: "an", kind: "anthropic", base_url: stub.anthropicBaseUrl, api_key_env: "AN_KEY" }));
    const res = await adapter.request("messages", { model: "claude-stub", max_tokens: 50, messages: [{ role: "user", content: "hi there" }] });
    expect(((await res.json()) as any).content[0].text).toBe("reply to: hi there");
    const seen = stub.last("/v1/messages")!;
    expect(seen.headers["x-api-key"]).toBe(KEY);
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen.headers.authorization).toBeUndefined();
  });

  test("supports(): anthropic serves messages only; openai chat and embeddings, responses only when declared", async () => {
    const an = adapterFor(provider({ name: "an", kind: "anthropic", base_url: stub.anthropicBaseUrl, api_key_env: "AN_KEY" }));
    expect((["chat", "messages", "embeddings", "responses"] as const).filter((e) => an.supports(e))).toEqual(["messages"]);
    const oa = adapterFor(provider());
    expect((["chat", "messages", "embeddings", "responses"] as const).filter((e) => oa.supports(e))).toEqual(["chat", "embeddings"]);
    const withResponses = adapterFor(provider({ supports_responses: true }));
    expect(withResponses.supports("responses")).toBe(true);
    expect(((await (await withResponses.request("responses", { model: "m", input: "hey you" })).json()) as any).output[0].content[0].text).toBe("reply to: hey you");
    const refused = await failure(an.request("embeddings", { model: "e", input: "x" }), "an");
    expect(refused.type).toBe("upstream_unavailable");
    expect(refused.message).toContain("does not serve the embeddings endpoint");
    const emb = (await (await oa.request("embeddings", { model: "e", input: ["a", "b"], encoding_format: "float" })).json()) as any;
    expect(emb.data).toHaveLength(2);
  });
});

describe("upstream failures", () => {
  test("429 → 429 upstream_rate_limited with the upstream's Retry-After", async () => {
    const e = await failure(adapterFor(provider({ headers: { "x-stub-retry-after": "7" } })).request("chat", chatBody("gpt@rate_limit")));
    expect(e.status).toBe(429);
    expect(e.type).toBe("upstream_rate_limited");
    expect(e.body().error).toMatchObject({ retry_after_secs: 7, upstream_status: 429 });
    expect(e.headers["retry-after"]).toBe("7");
    expect(e.retryable).toBe(true);
  });

  test("500 → 502 upstream_error; a wrong key → 502 upstream_auth_failed (the upstream's words are not passed on)", async () => {
    const e = await failure(adapterFor(provider()).request("chat", chatBody("gpt@fail")));
    expect([e.status, e.type, e.upstreamStatus, e.retryable]).toEqual([502, "upstream_error", 500, true]);
    expect(e.message).toContain("the stub failed on purpose");
    const auth = await failure(adapterFor(provider(), { OA_KEY: "sk-wrong-key-123456789" }).request("chat", chatBody()));
    expect([auth.status, auth.type, auth.upstreamStatus]).toEqual([502, "upstream_auth_failed", 401]);
    expect(auth.message).not.toContain("sk-wrong-key");
  });

  test("400 → 400 upstream_rejected with the upstream's reason, scrubbed of anything shaped like a key; not retryable", async () => {
    const adapter = adapterFor(provider({ headers: { "x-stub-reject-message": `max_tokens too large for key ${KEY} (also sk-other-1234567890abc)` } }));
    const e = await failure(adapter.request("chat", chatBody("gpt@reject")));
    expect([e.status, e.type, e.retryable]).toEqual([400, "upstream_rejected", false]);
    expect(e.message).toContain("max_tokens too large for key [redacted]");
    expect(e.message).not.toContain("sk-other-1234567890abc");
  });

  test("no answer within timeout_secs → 504 upstream_timeout; the stub sees the call abandoned", async () => {
    const before = stub.requests.length;
    const t0 = performance.now();
    const e = await failure(adapterFor(provider({ timeout_secs: 0.3 })).request("chat", chatBody("gpt@hang")));
    expect([e.status, e.type]).toEqual([504, "upstream_timeout"]);
    expect(e.message).toContain("did not finish within 0.3 s");
    expect(performance.now() - t0).toBeLessThan(2000);
    await Bun.sleep(20);
    expect(stub.requests[before]!.aborted).toBe(true);
  });

  test("streaming: no headers within connect_timeout_secs → 504; a stream slower than timeout_secs errors mid-way with 504", async () => {
    const early = await failure(adapterFor(provider({ connect_timeout_secs: 0.2 })).request("chat", chatBody("gpt@hang", { stream: true }), { stream: true }));
    expect(early.type).toBe("upstream_timeout");
    expect(early.message).toContain("did not start answering within 0.2 s");

    const slow = adapterFor(provider({ timeout_secs: 0.4, headers: { "x-stub-delay-ms": "0", "x-stub-chunk-delay-ms": "100" } }));
    const res = await slow.request("chat", chatBody("gpt@slow", { stream: true }), { stream: true });
    const e = await failure(res.text());
    expect([e.status, e.type]).toEqual([504, "upstream_timeout"]);
  });

  test("connection refused → 502 upstream_unavailable; a stream cut short → the body fails with 502 upstream_error", async () => {
    const port = await freePort();
    const refused = await failure(adapterFor(provider({ base_url: `http://127.0.0.1:${port}/v1` })).request("chat", chatBody()));
    expect([refused.status, refused.type]).toEqual([502, "upstream_unavailable"]);
    expect(refused.message).toContain("connection refused");

    const res = await adapterFor(provider()).request("chat", chatBody("gpt@cut", { stream: true }), { stream: true });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toStartWith("data: ");
    const cut = await failure((async () => {
      while (!(await reader.read()).done);
    })());
    expect([cut.status, cut.type]).toEqual([502, "upstream_error"]);
    expect(cut.message).toContain("broke off");

    // Not streaming, the half body fails inside request() itself.
    const half = await failure(adapterFor(provider()).request("chat", chatBody("gpt@cut")));
    expect(half.type).toBe("upstream_error");
  });

  test("a 200 that is not JSON → 502 upstream_error from readUpstreamJson", async () => {
    const res = await adapterFor(provider()).request("chat", chatBody("gpt@bad_json"));
    const e = await failure(readUpstreamJson(res, "oa"));
    expect([e.status, e.type]).toEqual([502, "upstream_error"]);
  });

  test("the caller's abort cancels the upstream call and surfaces as the caller's own reason", async () => {
    const before = stub.requests.length;
    const controller = new AbortController();
    const call = adapterFor(provider()).request("chat", chatBody("gpt@hang"), { signal: controller.signal });
    await Bun.sleep(50);
    controller.abort(new Error("client went away"));
    await expect(call).rejects.toThrow("client went away");
    await Bun.sleep(20);
    expect(stub.requests[before]!.aborted).toBe(true);

    const streaming = new AbortController();
    const res = await adapterFor(provider({ headers: { "x-stub-chunk-delay-ms": "30" } })).request("chat", chatBody("gpt-stub", { stream: true }), { stream: true, signal: streaming.signal });
    const reader = res.body!.getReader();
    await reader.read();
    streaming.abort(new Error("gone mid-stream"));
    await expect(reader.read()).rejects.toThrow("gone mid-stream");
  });

  test("Retry-After parsing: seconds, HTTP dates, retry-after-ms; a default when absent", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterSecs(new Headers({ "retry-after": "12" }), now)).toBe(12);
    expect(retryAfterSecs(new Headers({ "retry-after": "0.2" }), now)).toBe(1);
    expect(retryAfterSecs(new Headers({ "retry-after": new Date(now + 30_500).toUTCString() }), now)).toBe(30);
    expect(retryAfterSecs(new Headers({ "retry-after-ms": "2500" }), now)).toBe(3);
    expect(retryAfterSecs(new Headers(), now)).toBe(DEFAULT_RETRY_AFTER_SECS);
    expect(retryAfterSecs(new Headers({ "retry-after": "soon" }), now)).toBe(DEFAULT_RETRY_AFTER_SECS);
    expect(scrub("see https://user:pw@host/x?api_key=abc&b=1 and Bearer abcdefghijkl")).toBe("see https://[redacted]@host/x?api_key=[redacted]&b=1 and Bearer [redacted]");
  });
});

describe("credentials", () => {
  test("sealed keys open only for the provider they were sealed for; env keys need their variable; neither leaks into logs", async () => {
    const lines: string[] = [];
    const log = createLogger("debug", (l) => lines.push(l));
    const sealed = sealApiKey(sealer, "oa", KEY);
    expect(sealed).not.toContain(KEY);
    expect(sealer.openText(sealed, credentialAad("oa"))).toBe(KEY);

    const good = adapterFor(provider({ api_key_env: undefined, api_key_sealed: sealed }), {}, log);
    expect((await good.request("chat", chatBody())).status).toBe(200);
    expect(stub.last()!.headers.authorization).toBe(`Bearer ${KEY}`);

    // The same ciphertext under another provider's name does not open: that provider is unavailable.
    const catalog = new Catalog(
      { providers: [provider({ name: "copy", api_key_env: undefined, api_key_sealed: sealed }), provider({ name: "noenv", api_key_env: "NOT_SET_ANYWHERE" })], models: [] },
      { configPath: join(tempDir(), "absent.toml"), sealer, clock: new ManualClock(), log, env: {} },
    );
    const copy = catalog.current().provider("copy")!;
    expect(copy).toMatchObject({ available: false, credential: "sealed" });
    expect(copy.unavailableReason).toContain("does not open");
    const e = await failure(copy.adapter.request("chat", chatBody()), "copy");
    expect([e.status, e.type]).toEqual([502, "upstream_unavailable"]);
    const noenv = catalog.current().provider("noenv")!;
    expect(noenv).toMatchObject({ available: false, credential: "env NOT_SET_ANYWHERE" });
    expect((await failure(noenv.adapter.request("chat", chatBody()), "noenv")).message).toContain("NOT_SET_ANYWHERE is not set");
    expect(lines.join("\n")).toContain("NOT_SET_ANYWHERE");
    expect(lines.join("\n")).not.toContain(KEY);
    expect(JSON.stringify([...catalog.current().providers.values()].map(({ adapter: _, ...rest }) => rest))).not.toContain(KEY);
  });
});

describe("svc providers (compiled binary)", () => {
  beforeAll(async () => {
    await svcBinary();
  }, 120_000);

  async function setUp() {
    const dir = join(tempDir(), "data");
    expect((await runSvc(["setup", "--yes", "--data-dir", dir])).code).toBe(0);
    return dir;
  }
  const svc = (dir: string, args: string[], stdin?: string) => runSvc([...args, "--data-dir", dir], { stdin });

  test("add (env and stdin), list, --replace, remove: keys are never printed and the stdin key is sealed", async () => {
    const dir = await setUp();
    const env = await svc(dir, ["providers", "add", "openai", "--kind", "openai", "--base-url", "https://api.openai.com/v1/", "--api-key-env", "OPENAI_API_KEY", "--region", "us", "--region", "eu", "--privacy-tier", "standard", "--privacy-tier", "zero_retention"]);
    expect(env.code).toBe(0);
    expect(env.stdout).toContain("added provider openai (openai at https://api.openai.com/v1; key: env OPENAI_API_KEY; regions: us,eu; privacy tiers: standard,zero_retention");
    expect(env.stdout).toContain("a running svc picks this up within 1 s");

    const sealedAdd = await svc(dir, ["providers", "add", "claude", "--kind", "anthropic", "--base-url", "https://user:pw@api.anthropic.com?token=abc", "--api-key-stdin", "--timeout-secs", "120"], `${KEY}\n`);
    expect(sealedAdd.code).toBe(0);
    expect(sealedAdd.stdout + sealedAdd.stderr).not.toContain(KEY);
    expect(sealedAdd.stdout).toContain("key: sealed");
    expect(sealedAdd.stdout).not.toContain("pw@");
    const file = readConfigFile(join(dir, "svc.toml")) as { providers: ProviderConfig[] };
    const stored = file.providers.find((p) => p.name === "claude")!;
    expect(JSON.stringify(file)).not.toContain(KEY);
    expect(Sealer.fromKeyFile(join(dir, "master.key")).openText(stored.api_key_sealed!, credentialAad("claude"))).toBe(KEY);

    const list = await svc(dir, ["providers", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("key: env OPENAI_API_KEY");
    expect(list.stdout).toContain("claude (anthropic at https://api.anthropic.com?…; key: sealed");
    expect(list.stdout).not.toContain(stored.api_key_sealed!);
    const json = JSON.parse((await svc(dir, ["providers", "list", "--json"])).stdout);
    expect(json.map((p: { name: string; credential: string }) => [p.name, p.credential])).toEqual([
      ["openai", "env OPENAI_API_KEY"],
      ["claude", "sealed"],
    ]);
    expect(JSON.stringify(json)).not.toContain(stored.api_key_sealed!);

    // Same settings: no change. Other settings: --replace, which keeps the sealed key.
    const again = await svc(dir, ["providers", "add", "openai", "--kind", "openai", "--base-url", "https://api.openai.com/v1", "--api-key-env", "OPENAI_API_KEY", "--region", "us", "--region", "eu", "--privacy-tier", "standard", "--privacy-tier", "zero_retention", "--replace"]);
    expect(again.stdout).toContain("no change");
    const clash = await svc(dir, ["providers", "add", "claude", "--kind", "anthropic", "--base-url", "https://api.anthropic.com"]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("--replace");
    const replaced = await svc(dir, ["providers", "add", "claude", "--kind", "anthropic", "--base-url", "https://api.anthropic.com", "--timeout-secs", "60", "--replace"]);
    expect(replaced.code).toBe(0);
    const after = loadConfig({ dataDir: dir }, {}).providers.find((p) => p.name === "claude")!;
    expect(after.timeout_secs).toBe(60);
    expect(after.api_key_sealed).toBe(stored.api_key_sealed);

    // In use by a model: refused unless --force, which takes the models along.
    expect((await svc(dir, ["models", "add", "sonnet", "--provider", "claude", "--upstream", "claude-sonnet", "--input-micro-usd-per-mtok", "3000000", "--output-micro-usd-per-mtok", "15000000", "--max-output", "8192"])).code).toBe(0);
    expect((await svc(dir, ["models", "add", "gpt", "--provider", "openai", "--upstream", "gpt-4o", "--input-micro-usd-per-mtok", "1", "--output-micro-usd-per-mtok", "1", "--fallback-provider", "claude"])).code).toBe(0);
    const busy = await svc(dir, ["providers", "remove", "claude"]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("serves sonnet and is a fallback for gpt");
    const forced = await svc(dir, ["providers", "remove", "claude", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("removed the models it served: sonnet");
    const config = loadConfig({ dataDir: dir }, {});
    expect(config.providers.map((p) => p.name)).toEqual(["openai"]);
    expect(config.models.map((m) => [m.id, m.fallback_providers])).toEqual([["gpt", []]]);
    const gone = await svc(dir, ["providers", "remove", "claude"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("no provider claude (configured: openai)");
  }, 60_000);

  test("bad flags are usage errors (exit 2) that change nothing", async () => {
    const dir = await setUp();
    const cases: string[][] = [
      ["providers", "add", "x", "--kind", "cohere", "--base-url", "https://a.example"],
      ["providers", "add", "x", "--kind", "openai", "--base-url", "ftp://a.example"],
      ["providers", "add", "Bad Name", "--kind", "openai", "--base-url", "https://a.example"],
      ["providers", "add", "x", "--kind", "openai", "--base-url", "https://a.example", "--api-key-env", "K", "--api-key-stdin"],
      ["providers", "add", "x", "--kind", "openai", "--base-url", "https://a.example", "--privacy-tier", "secret"],
      ["providers", "add", "x", "--kind", "openai", "--base-url", "https://a.example", "--timeout-secs", "0"],
      ["providers", "add", "x", "--kind", "anthropic", "--base-url", "https://a.example", "--supports-responses"],
      ["providers", "add", "x", "--kind", "openai", "--base-url", "https://a.example", "--api-key-stdin"],
    ];
    for (const args of cases) {
      const r = await svc(dir, args, "");
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
    }
    const reserved = await svc(dir, ["providers", "add", "x", "--kind", "openai", "--base-url", "https://a.example", "--header", "Authorization: Bearer x"]);
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toContain("headers may not set Authorization");
    expect(loadConfig({ dataDir: dir }, {}).providers).toEqual([]);
  }, 60_000);
});
