/**
 * The cache of prompt-text counts (tokens.ts PromptTextCounts): exact counts, per account, bounded
 * by characters; and through HTTP, a conversation resent with one message more reserves exactly
 * what the documented formula says, counting only the new message.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import OpenAI from "openai";
import { countTokens, PromptTextCounts, promptTextCounts } from "../../../src/domains/inference/tokens.ts";
import { costAt, type Gateway, startGateway, usageEvents } from "./inference-support.ts";

const long = (seed: string, words = 200) => Array.from({ length: words }, (_, i) => `${seed}-${(i * 7919) % 1013}`).join(" ");

/** A cache whose tokenizer records what it was asked to count. */
function counted(maxChars: number) {
  const tokenized: string[] = [];
  const cache = new PromptTextCounts(maxChars, (text) => (tokenized.push(text), countTokens(text)));
  return { cache, tokenized };
}

describe("PromptTextCounts", () => {
  test("counts exactly, and a text counted before is found, not tokenized again", () => {
    const { cache, tokenized } = counted(1_000_000);
    const count = cache.counter("acct_a");
    const text = long("alpha");
    expect(count(text)).toBe(encode(text).length);
    expect(count(text)).toBe(encode(text).length);
    expect(tokenized).toEqual([text]);
    expect(cache.size.texts).toBe(1);
  });

  test("another account's identical text is counted for it, not found in the first one's counts", () => {
    const { cache, tokenized } = counted(1_000_000);
    const text = long("shared");
    cache.counter("acct_a")(text);
    expect(cache.counter("acct_b")(text)).toBe(encode(text).length);
    expect(tokenized).toEqual([text, text]);
    expect(cache.size.texts).toBe(2);
  });

  test("short texts are not kept; the characters kept stay within the bound, the oldest dropped first", () => {
    const { cache, tokenized } = counted(10_000);
    cache.counter("acct_a")("short text");
    expect(cache.size.texts).toBe(0);
    const count = cache.counter("acct_a");
    const texts = Array.from({ length: 12 }, (_, i) => long(`t${i}`, 120));
    for (const t of texts) {
      count(t);
      expect(cache.size.chars).toBeLessThanOrEqual(10_000);
    }
    // The newest survive; the first are gone (counted again: the tokenizer runs).
    tokenized.length = 0;
    count(texts.at(-1)!);
    expect(tokenized).toEqual([]);
    count(texts[0]!);
    expect(tokenized).toEqual([texts[0]!]);
    // A text longer than a quarter of the bound is counted, never kept.
    const before = cache.size.texts;
    expect(count(long("huge", 2_000))).toBe(encode(long("huge", 2_000)).length);
    expect(cache.size.texts).toBe(before);
  });
});

describe("PromptTextCounts eviction", () => {
  test("a text found again gets a second chance: texts stored after it go before it", () => {
    const { cache, tokenized } = counted(8_000);
    const count = cache.counter("acct_a");
    const [system, ...turns] = [long("system", 150), ...Array.from({ length: 8 }, (_, i) => long(`turn${i}`, 150))];
    count(system!);
    // Every turn resends the system prompt, as an agent does: it is found each time.
    for (const turn of turns) {
      count(system!);
      count(turn);
      expect(cache.size.chars).toBeLessThanOrEqual(8_000);
    }
    tokenized.length = 0;
    count(system!);
    expect(tokenized).toEqual([]);
    count(turns[0]!);
    expect(tokenized).toEqual([turns[0]!]);
  });

  test("two texts of one account with the same checksum both count exactly", () => {
    // A real CRC-32 collision, found by a bounded birthday search over fixed texts (the same pair every run).
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    // Varied bytes (an MD5 of a counter): texts that differ only in a short counter cannot collide under a CRC.
    for (let i = 0; i < 400_000 && !pair; i++) {
      const text = `a collision candidate, long enough to be kept: ${new Bun.CryptoHasher("md5").update(String(i)).digest("hex")}`;
      const key = Bun.hash.crc32(text);
      const other = seen.get(key);
      if (other !== undefined) pair = [other, text];
      else seen.set(key, text);
    }
    expect(pair).not.toBeNull();
    const [a, b] = pair!;
    expect(Bun.hash.crc32(a)).toBe(Bun.hash.crc32(b));
    const { cache, tokenized } = counted(1_000_000);
    const count = cache.counter("acct_a");
    expect([count(a), count(b), count(a), count(b)]).toEqual([encode(a).length, encode(b).length, encode(a).length, encode(b).length]);
    // They take turns in the one slot: each is tokenized when the other holds it.
    expect(tokenized).toEqual([a, b, a, b]);
    expect(cache.size).toEqual({ texts: 1, chars: b.length });
  });
});

describe("through HTTP", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.stop());

  test("a conversation resent with two messages more reserves what the formula says; only the new messages are counted anew", async () => {
    const client = new OpenAI({ apiKey: g.key, baseURL: `${g.url}/v1` });
    type Message = { role: "system" | "user" | "assistant"; content: string };
    const history: Message[] = [
      { role: "system", content: long("system", 300) },
      { role: "user", content: long("question", 300) },
    ];
    const reserved = async (messages: Message[]) => {
      await client.chat.completions.create({ model: "gpt-test", messages, max_tokens: 16 });
      return usageEvents(g).at(-1)!.reserved_micro_usd;
    };
    const kept = () => promptTextCounts.size.texts;
    const before = kept();
    const first = await reserved(history);
    expect(kept()).toBe(before + 2);
    const next: Message[] = [...history, { role: "assistant", content: long("answer", 300) }, { role: "user", content: long("follow-up", 300) }];
    const second = await reserved(next);
    // The two new messages only: the system prompt and the first question were found.
    expect(kept()).toBe(before + 4);

    // Exactly the documented reservation: ⌈counted × 1.1⌉ + 4 per message + 3 at the input price, plus max_tokens at the output price.
    const prompt = (messages: Message[]) => Math.ceil((messages.reduce((n, m) => n + encode(m.content).length, 0) * 110) / 100) + 4 * messages.length + 3;
    const amount = (messages: Message[]) => costAt(prompt(messages), 16);
    expect(first).toBe(amount(history));
    expect(second).toBe(amount(next));
  });
});
