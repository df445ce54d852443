/** svc doctor: check config, keys, database, port and helper programs; say how to fix problems. */
import { runDoctor } from "../src/doctor.ts";
import { type Command, EXIT_FAILURE, locationOptions, str } from "../src/cli/command.ts";

const MARK = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check the configuration, keys, database, port, bubblewrap and litestream",
  options: { ...locationOptions, json: { type: "boolean", description: "print the checks as JSON" } },
  details: "Exits 1 when any check fails (warnings do not fail).",
  async run({ values }) {
    const checks = await runDoctor({ config: str(values.config), dataDir: str(values["data-dir"]) });
    if (values.json) console.log(JSON.stringify(checks, null, 2));
    else
      for (const c of checks) {
        console.log(`${MARK[c.status]}  ${c.name}: ${c.message}`);
        if (c.fix && c.status !== "ok") console.log(`      fix: ${c.fix}`);
      }
    const failed = checks.filter((c) => c.status === "fail").length;
    if (!values.json) console.log(failed ? `\n${failed} check(s) failed` : "\nno failures");
    return failed ? EXIT_FAILURE : 0;
  },
};
