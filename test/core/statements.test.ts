import { describe, expect, test } from "bun:test";
import { recoverMessageAddress } from "viem";
import { canonicalJson, compareCodePoints } from "../../src/core/canonical-json.ts";
import { generateSecretKey } from "../../src/core/eip191.ts";
import { Signer } from "../../src/core/signer.ts";
import { signStatement, verifyStatement } from "../../src/core/statements.ts";

describe("canonical JSON", () => {
  test("sorted keys, arrays in order, no whitespace, minimal escaping", () => {
    expect(canonicalJson({ b: 1, a: [3, 2, { z: null, y: true }], c: "é\n\"" })).toBe('{"a":[3,2,{"y":true,"z":null}],"b":1,"c":"é\\n\\""}');
    expect(canonicalJson({})).toBe("{}");
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  test("keys sort by code point as spec §2.4 says (RFC 8785 sorts by UTF-16 unit, which differs above U+FFFF)", () => {
    // U+1F600 (😀, surrogates D83D DE00) sorts after U+FB33 by code point, before it by UTF-16 unit.
    expect(canonicalJson({ "\u{1F600}": 1, "\uFB33": 2 })).toBe('{"\uFB33":2,"\u{1F600}":1}');
    expect(canonicalJson({ "\u20ac": 1, "\r": 2, "1": 3, "\u00f6": 4 })).toBe('{"\\r":2,"1":3,"ö":4,"€":1}');
  });

  test("the key comparison agrees with a code-point-by-code-point one on mixed planes, shared surrogates and prefixes", () => {
    const byCodePoints = (a: string, b: string) => {
      const x = Array.from(a, (c) => c.codePointAt(0)!);
      const y = Array.from(b, (c) => c.codePointAt(0)!);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    const alphabet = ["a", "b", "\uFB33", "\uFFFF", "\u{1F600}", "\u{1F601}", "\u{10000}", "\u{20000}", "é", ""];
    let seed = 7;
    const pick = () => alphabet[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % alphabet.length]!;
    const word = () => Array.from({ length: 1 + (seed % 4) }, pick).join("");
    for (let i = 0; i < 2000; i++) {
      const a = word();
      const b = word();
      expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(byCodePoints(a, b)));
    }
  });

  test("refuses what it cannot hold exactly", () => {
    expect(() => canonicalJson({ a: 1.5 })).toThrow(/integers only/);
    expect(() => canonicalJson({ a: 2 ** 60 })).toThrow();
    expect(() => canonicalJson({ a: () => 1 })).toThrow();
  });
});

describe("signed statements", () => {
  const signer = new Signer(generateSecretKey());

  test("verify with viem, and with ours; tampering and other signers are refused", async () => {
    const s = signStatement(signer, { v: 1, type: "test", amount_micro_usd: 5 });
    expect(String(await recoverMessageAddress({ message: s.statement, signature: s.signature as `0x${string}` }))).toBe(signer.address);
    expect(verifyStatement(s.statement, s.signature, [signer.address])).toEqual({ valid: true, recovered_address: signer.address, payload: { v: 1, type: "test", amount_micro_usd: 5 } });
    const forged = Buffer.from(canonicalJson({ v: 1, type: "test", amount_micro_usd: 500 })).toString("base64url");
    expect(verifyStatement(forged, s.signature, [signer.address])).toMatchObject({ valid: false, reason: expect.stringContaining("not this service's signer") });
    const other = new Signer(generateSecretKey());
    expect(verifyStatement(s.statement, other.sign(s.statement), [signer.address]).valid).toBe(false);
    expect(verifyStatement("!!", s.signature, [signer.address])).toMatchObject({ valid: false, reason: "statement is not base64url" });
    expect(verifyStatement(s.statement, 42, [signer.address])).toMatchObject({ valid: false });
    expect(verifyStatement(s.statement, "0x00", [signer.address])).toMatchObject({ valid: false, reason: expect.stringContaining("cannot be recovered") });
  });
});
