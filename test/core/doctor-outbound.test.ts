/**
 * svc doctor's "outbound requests" line: what the running server sends out at once (read from its
 * environment), or what a serve started from this shell would (docs/operations.md).
 */
import { describe, expect, test } from "bun:test";
import { outboundCheck } from "../../src/doctor.ts";

const limits = (hard: string) => `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 ${hard.padEnd(21)}files     \n`;
const environ = (...entries: string[]) => ["PATH=/usr/bin", ...entries, "HOME=/var/lib/svc"].join("\0");

describe("svc doctor: outbound requests", () => {
  const rows: [string, Parameters<typeof outboundCheck>, "ok" | "warn", RegExp][] = [
    ["the running server, raised", [{ pid: 42, environ: environ("BUN_CONFIG_MAX_HTTP_REQUESTS=16384") }, {}, limits("65536")], "ok", /pid 42\) sends up to 16384/],
    ["the running server without the variable (execve refused)", [{ pid: 42, environ: environ() }, {}, limits("65536")], "warn", /up to 256 .*wait for one to end/],
    ["the running server with a value the runtime ignores", [{ pid: 7, environ: environ("BUN_CONFIG_MAX_HTTP_REQUESTS=lots") }, {}, null], "warn", /up to 256/],
    ["not running: from this shell's hard limit", [null, {}, limits("20000")], "ok", /up to 9744 .*open-files limit here, 20000/],
    ["not running: a low hard limit", [null, {}, limits("1024")], "warn", /up to 256 .*1024\).*wait for one to end/],
    ["not running: no /proc", [null, {}, null], "ok", /up to 16384 .*unknown/],
    ["not running: the operator's value", [null, { BUN_CONFIG_MAX_HTTP_REQUESTS: "100" }, limits("20000")], "ok", /up to 100 .*as set/],
    ["not running: the operator's 256", [null, { BUN_CONFIG_MAX_HTTP_REQUESTS: "256" }, limits("20000")], "ok", /up to 256 .*as set/],
    ["not running: a value the runtime ignores", [null, { BUN_CONFIG_MAX_HTTP_REQUESTS: "1e4" }, limits("20000")], "warn", /"1e4" is not a whole number.*256/],
    ["not running: an empty value counts as unset", [null, { BUN_CONFIG_MAX_HTTP_REQUESTS: "" }, limits("20000")], "ok", /up to 9744/],
  ];
  for (const [label, args, status, message] of rows) {
    test(label, () => {
      const check = outboundCheck(...args);
      expect(check.name).toBe("outbound requests");
      expect(check.status).toBe(status);
      expect(check.message).toMatch(message);
      if (status === "warn") expect(check.fix).toContain("docs/operations.md");
    });
  }
});
