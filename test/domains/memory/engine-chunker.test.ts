import { describe, expect, test } from "bun:test";
import { chunkText, countChunkTokens } from "../../../src/domains/memory/engine/chunker.ts";
import { reciprocalRankFusion } from "../../../src/domains/memory/engine/fusion.ts";
import { keywordWords, matchExpression } from "../../../src/domains/memory/engine/keyword-index.ts";
import { quantise } from "../../../src/domains/memory/engine/vector-index.ts";

describe("chunker", () => {
  const words = Array.from({ length: 600 }, (_, i) => `w${i}`).join(" ");

  test("chunks stay within the token budget, overlap, and cover the text in order", () => {
    const chunks = chunkText(words, { chunkSize: 50, overlap: 10 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(52); // piece counts add up to within a token or two
    for (let i = 1; i < chunks.length; i++) {
      const prevWords = chunks[i - 1]!.text.split(" ");
      const first = chunks[i]!.text.split(" ")[0]!;
      // The next chunk starts inside the previous one (overlap), a few words before its end.
      expect(prevWords).toContain(first);
      expect(prevWords.indexOf(first)).toBeGreaterThan(prevWords.length / 2);
    }
    expect(chunks[0]!.text.startsWith("w0 ")).toBe(true);
    expect(chunks.at(-1)!.text.endsWith("w599")).toBe(true);
  });

  test("without overlap the chunks are the text, cut between words", () => {
    const chunks = chunkText(words, { chunkSize: 64, overlap: 0 });
    expect(chunks.map((c) => c.text).join(" ")).toBe(words);
  });

  test("never splits a character, even in text without spaces", () => {
    const text = "日本語のテキスト🙂".repeat(200);
    const chunks = chunkText(text, { chunkSize: 32, overlap: 0 });
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((c) => c.text).join("")).toBe(text);
    for (const c of chunks) expect(c.text).not.toContain("\uFFFD");
  });

  test("empty text has no chunks; control-token text is plain text", () => {
    expect(chunkText("  \n ", { chunkSize: 32, overlap: 0 })).toEqual([]);
    expect(countChunkTokens("<|endoftext|>")).toBeGreaterThan(1);
    expect(() => chunkText("x", { chunkSize: 8, overlap: 0 })).toThrow("chunk_size");
  });
});

describe("keyword terms", () => {
  test("are folded and prefixed, and a query cannot inject FTS5 syntax", () => {
    expect(keywordWords("Café NAÏVE x-ray 42")).toEqual(["cafe", "naive", "x", "ray", "42"]);
    expect(matchExpression(7, 'foo" OR bar* NEAR(')).toBe('"c7xfoo" OR "c7xor" OR "c7xbar" OR "c7xnear"');
    expect(matchExpression(7, "  ...  ")).toBeNull();
  });
});

describe("reciprocal rank fusion", () => {
  test("an item both lists rank well beats one list's top item", () => {
    const fused = reciprocalRankFusion([["a", "b", "c"], ["d", "b", "e", "f", "a"]]);
    expect(fused[0]!.id).toBe("b");
    expect(fused[0]!.ranks).toEqual([2, 2]);
    expect(fused.find((f) => f.id === "d")!.ranks).toEqual([null, 1]);
  });
});

describe("quantised code", () => {
  test("two thermometer bits per dimension: below, between and above the cuts", () => {
    const cut = 0.43 / Math.sqrt(4);
    const code = quantise(new Float32Array([-0.9, 0, 0.9, cut / 2]));
    // dims 0..3 → levels 00, 10 (bit 2), 11 (bits 4, 5), 10 (bit 6)
    expect(Array.from(code)).toEqual([0b0111_0100]);
  });
});
