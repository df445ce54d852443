/**
 * svc doctor's "cpu idle" line: a virtual machine whose haltpoll driver polls nothing makes every
 * request that finds a vCPU idle wait for the host to wake it (docs/operations.md). Only that
 * driver is judged; anything else adds no line.
 */
import { describe, expect, test } from "bun:test";
import { cpuIdleSettings } from "../../src/core/cpu-idle.ts";
import { cpuIdleCheck, HALT_POLL_NS } from "../../src/doctor.ts";

describe("svc doctor: cpu idle", () => {
  const rows: [string, string | null, number | null, "ok" | "warn" | null, RegExp | null][] = [
    ["haltpoll polling nothing", "haltpoll", 0, "warn", /halts at once .*guest_halt_poll_ns = 0/],
    ["haltpoll polling", "haltpoll", 500000, "ok", /polls up to 500 µs/],
    ["another driver (bare metal)", "intel_idle", 0, null, null],
    ["haltpoll without its module's parameters", "haltpoll", null, null, null],
    ["no cpuidle at all (a container without /sys)", null, null, null, null],
  ];
  for (const [label, driver, pollNs, status, message] of rows) {
    test(label, () => {
      const check = cpuIdleCheck({ driver, pollNs });
      if (status === null) return expect(check).toBeNull();
      expect(check).toMatchObject({ name: "cpu idle", status });
      expect(check!.message).toMatch(message!);
      if (status === "warn") expect(check!.fix).toContain(`echo ${HALT_POLL_NS} > /sys/module/haltpoll/parameters/guest_halt_poll_ns`);
    });
  }
});

test("the settings as this machine has them: read without throwing, whatever is there", () => {
  const { driver, pollNs } = cpuIdleSettings();
  expect(driver === null || typeof driver === "string").toBe(true);
  expect(pollNs === null || Number.isInteger(pollNs)).toBe(true);
});
