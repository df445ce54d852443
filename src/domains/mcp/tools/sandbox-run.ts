/** sandbox_run: a one-shot code run, POST /v1/sandboxes as a tool (the sandboxes area's runSandbox; areas.ts). */
import { Type as T } from "@sinclair/typebox";
import { receiptMeta } from "../metering.ts";
import { areaService } from "./areas.ts";
import { defineTool, notAvailable, structured } from "./types.ts";

interface RunArgs {
  language: string;
  code: string;
  stdin?: string;
  timeout_secs?: number;
}

export const sandboxRun = defineTool<RunArgs>({
  name: "sandbox_run",
  title: "Run code in a sandbox",
  description:
    "Run a program once in an isolated sandbox (no network, a fresh workspace) and get its exit code, stdout and stderr. language is python, javascript or bash. Billed per second like POST /v1/sandboxes, with a signed receipt in _meta.",
  scope: "sandboxes",
  input: T.Object(
    {
      language: T.String({ minLength: 1, maxLength: 32, description: "python, javascript or bash (GET /v1/status lists what this deployment runs)" }),
      code: T.String({ minLength: 1, maxLength: 1_000_000 }),
      stdin: T.Optional(T.String({ maxLength: 1_000_000 })),
      timeout_secs: T.Optional(T.Integer({ minimum: 1, maximum: 3600 })),
    },
    { additionalProperties: false },
  ),
  metering: "self",
  run: async ({ ctx, principal, signal, runId }, args) => {
    const sandboxes = areaService("sandboxes", ctx);
    if (!sandboxes) return notAvailable("sandbox_run", "sandboxes");
    const { result, settlement } = await sandboxes.runSandbox(ctx, principal, { ...args, signal, runId });
    return { result: { ...structured(result as unknown as Record<string, unknown>), isError: result.exit_code !== 0 }, receipt: receiptMeta(settlement) };
  },
});
