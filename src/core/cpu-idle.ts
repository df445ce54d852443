/**
 * How this machine's idle CPUs wait, as far as it matters to svc: on a KVM guest with the
 * haltpoll cpuidle driver, how long a vCPU polls before it halts (docs/operations.md#latency-on-a-virtual-machine).
 * Read by `svc doctor` and printed in the benches' headers.
 */
import { readFileSync } from "node:fs";

export const HALT_POLL_FILE = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

/** The cpuidle driver and, for haltpoll, its polling window in ns (null: not there). */
export const cpuIdleSettings = (): { driver: string | null; pollNs: number | null } => {
  const pollNs = read(HALT_POLL_FILE);
  return { driver: read("/sys/devices/system/cpu/cpuidle/current_driver"), pollNs: pollNs === null || pollNs === "" ? null : Number(pollNs) };
};
