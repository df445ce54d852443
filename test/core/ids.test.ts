import { describe, expect, test } from "bun:test";
import { isId, newId } from "../../src/core/ids.ts";
import { digestsEqual, newSecret, secretPrefix, sha256Hex } from "../../src/core/secrets.ts";

describe("ids and secrets", () => {
  test("ids carry their type prefix and are unique", () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newId("key")));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(isId(id, "key")).toBe(true);
    expect(isId(newId("call"), "key")).toBe(false);
    expect(isId("key_UPPERCASE00000000000000", "key")).toBe(false);
  });

  test("secrets are prefixed, high-entropy, and stored only as sha256", () => {
    const s = newSecret("sk-svc");
    expect(s).toMatch(/^sk-svc_[A-Za-z0-9_-]{43}$/);
    expect(newSecret("sk-svc")).not.toBe(s);
    const h = sha256Hex(s);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toContain(s.slice(7, 20));
    expect(digestsEqual(h, sha256Hex(s))).toBe(true);
    expect(digestsEqual(h, sha256Hex(s + "x"))).toBe(false);
    expect(digestsEqual(h, "abc")).toBe(false);
    expect(secretPrefix(s)).toBe(s.slice(0, 13));
  });
});
