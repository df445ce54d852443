import { describe, expect, test } from "bun:test";
import { addMicroUsd, assertMicroUsd, costPerMillion, formatUsd, microUsdToTokenUnits, parseUsd, tokenUnitsToMicroUsd } from "../../src/core/money.ts";

describe("money", () => {
  test("parses dollar amounts exactly and refuses what it cannot represent", () => {
    expect(parseUsd("12")).toBe(12_000_000);
    expect(parseUsd("$0.5")).toBe(500_000);
    expect(parseUsd("1.234567")).toBe(1_234_567);
    expect(parseUsd("-2.25")).toBe(-2_250_000);
    expect(() => parseUsd("1.2345678")).toThrow(/six decimals/);
    expect(() => parseUsd("1e3")).toThrow();
    expect(() => parseUsd("")).toThrow();
  });

  test("formats micro-USD for people", () => {
    expect(formatUsd(1_500_000)).toBe("$1.50");
    expect(formatUsd(123)).toBe("$0.000123");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(-1_000_001)).toBe("-$1.000001");
  });

  test("per-million pricing rounds up, never bills 0 for non-zero use", () => {
    expect(costPerMillion(1_000_000, 2_500_000)).toBe(2_500_000);
    expect(costPerMillion(1, 2_500_000)).toBe(3); // 2.5 micro-USD rounds up
    expect(costPerMillion(0, 2_500_000)).toBe(0);
    expect(costPerMillion(3, 1)).toBe(1);
    // Large products stay exact (BigInt inside).
    expect(costPerMillion(2 ** 40, 1_000_000_000)).toBe(2 ** 40 * 1000);
    expect(() => costPerMillion(-1, 1)).toThrow();
    expect(() => costPerMillion(1.5, 1)).toThrow();
  });

  test("token units convert exactly for 6-decimal USDT and floor dust for 18 decimals", () => {
    expect(tokenUnitsToMicroUsd(1_234_567n, 6)).toBe(1_234_567);
    expect(tokenUnitsToMicroUsd(10n ** 18n + 999n, 18)).toBe(1_000_000);
    expect(tokenUnitsToMicroUsd(5n, 2)).toBe(50_000);
    expect(microUsdToTokenUnits(1_234_567, 6)).toBe(1_234_567n);
    expect(microUsdToTokenUnits(1, 18)).toBe(10n ** 12n);
    expect(microUsdToTokenUnits(10_001, 2)).toBe(2n); // rounds up so the payment covers it
  });

  test("amounts must be safe integers", () => {
    expect(() => assertMicroUsd(1.5)).toThrow(/integer/);
    expect(() => assertMicroUsd("5")).toThrow();
    expect(assertMicroUsd(7)).toBe(7);
    expect(() => addMicroUsd(Number.MAX_SAFE_INTEGER, 1)).toThrow(/overflow/);
  });
});
