/**
 * checkJsonShape skips strings natively: it must decide exactly as a byte-by-byte scan of the
 * same text would — escaped quotes, runs of backslashes, unterminated strings, multi-byte text.
 */
import { describe, expect, test } from "bun:test";
import { checkJsonShape, type JsonLimits } from "../../src/core/body.ts";

/** The byte-by-byte scan the function replaced, as the reference: the error type it would throw, or null. */
function reference(bytes: Uint8Array, limits: JsonLimits): string | null {
  let depth = 0;
  let elements = 1;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limits.maxDepth) return "json_too_deep";
    } else if (b === 0x5d || b === 0x7d) depth--;
    else if (b === 0x2c && ++elements > limits.maxElements) return "json_too_many_values";
  }
  return null;
}

function verdict(bytes: Uint8Array, limits: JsonLimits): string | null {
  try {
    checkJsonShape(bytes, limits);
    return null;
  } catch (err) {
    return (err as { type: string }).type;
  }
}

const encode = (s: string) => new TextEncoder().encode(s);

describe("checkJsonShape", () => {
  test("table: what a string hides is not structure; what is outside one is", () => {
    const limits = { maxDepth: 2, maxElements: 3 };
    const cases: [string, string | null][] = [
      ['{"a":"[[[[,,,,"}', null],
      ['{"a":"\\"[[[["}', null],
      ['{"a":"\\\\"}', null],
      ['{"a":"\\\\",[[[]]]}', "json_too_deep"],
      ['{"a":"\\\\\\"[[[["}', null],
      ['[[[1]]]', "json_too_deep"],
      ['[1,2,3,4]', "json_too_many_values"],
      ['{"a":"é,ü,[[","b":1}', null],
      ['{"a":"unterminated [[[[,,,,', null],
      ['"\\', null],
      ['', null],
    ];
    for (const [text, want] of cases) expect([text, verdict(encode(text), limits)]).toEqual([text, want]);
  });

  test("randomised: the same verdict as the byte-by-byte scan on 20,000 texts of quotes, backslashes and brackets", () => {
    const alphabet = ['"', "\\", "[", "]", "{", "}", ",", "a", "é", " "];
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed);
    for (let n = 0; n < 20_000; n++) {
      const length = next() % 40;
      let text = "";
      for (let i = 0; i < length; i++) text += alphabet[next() % alphabet.length];
      const limits = { maxDepth: 1 + (next() % 4), maxElements: 1 + (next() % 6) };
      const bytes = encode(text);
      expect([text, verdict(bytes, limits)]).toEqual([text, reference(bytes, limits)]);
    }
  });
});
