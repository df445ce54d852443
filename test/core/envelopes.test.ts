import { describe, expect, test } from "bun:test";
import { Cursors } from "../../src/core/cursor.ts";
import { ApiError } from "../../src/core/errors.ts";
import { bareArray, listObject, namedList, parseLimit } from "../../src/core/envelopes.ts";

describe("list envelopes (spec §2.1)", () => {
  test("the three shapes", () => {
    expect(bareArray([1, 2])).toEqual([1, 2]);
    expect(listObject([1])).toEqual({ object: "list", data: [1] });
    expect(listObject([1], true)).toEqual({ object: "list", data: [1], has_more: true });
    expect(namedList("entries", [1], { next_cursor: null, has_more: false })).toEqual({ entries: [1], next_cursor: null, has_more: false });
  });

  test("limit: default, clamp above the maximum, 400 below the minimum or non-integer", () => {
    const rule = { min: 1, max: 1000, default: 200 };
    expect(parseLimit(undefined, rule)).toBe(200);
    expect(parseLimit("50", rule)).toBe(50);
    expect(parseLimit("5000", rule)).toBe(1000);
    for (const bad of ["0", "-1", "abc", "1.5"]) {
      try {
        parseLimit(bad, rule);
        throw new Error("accepted " + bad);
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(400);
        expect((err as ApiError).extra.param).toBe("limit");
      }
    }
  });
});

describe("opaque cursors (spec §2.2)", () => {
  const cursors = new Cursors(new Uint8Array(32).fill(7));

  test("round-trip a keyset position", () => {
    const c = cursors.encode("ledger:acct_a", [1234, "le_x"]);
    expect(cursors.decode("ledger:acct_a", c)).toEqual([1234, "le_x"]);
  });

  const refused = (scope: string, cursor: string) => {
    try {
      cursors.decode(scope, cursor);
      return null;
    } catch (err) {
      return err as ApiError;
    }
  };

  test("tampered, truncated, garbage and foreign cursors answer 400 invalid_cursor", () => {
    const c = cursors.encode("ledger:acct_a", [1234]);
    const forged = Buffer.from(JSON.stringify([1])).toString("base64url") + c.slice(c.indexOf("."));
    for (const bad of [forged, c.slice(0, -2), "garbage", "", ".", c + "x"]) {
      const err = refused("ledger:acct_a", bad);
      expect(err?.status).toBe(400);
      expect(err?.type).toBe("invalid_cursor");
    }
    // Another account's (or endpoint's) cursor is foreign.
    expect(refused("ledger:acct_b", c)?.type).toBe("invalid_cursor");
    // Another deployment's key cannot mint cursors for this one.
    const other = new Cursors(new Uint8Array(32).fill(9)).encode("ledger:acct_a", [1234]);
    expect(refused("ledger:acct_a", other)?.type).toBe("invalid_cursor");
  });
});
