/**
 * Batches through the official openai SDK against the inference test gateway (real HTTP, the
 * scheduler and the batch runner running, providers on the local upstream stub), with slow and
 * failing models pinned by the stub's behaviours.
 */
import { toFile } from "openai";
import type { Batch } from "openai/resources/batches";
import { type Gateway, type GatewayOptions, startGateway, withModels } from "../inference/inference-support.ts";

export type { Batch };

export async function startBatchGateway(options: GatewayOptions = {}): Promise<Gateway> {
  return startGateway({
    catalog: withModels([
      // 300 ms per call (the stub's default for "slow"): lines are in flight long enough to cancel or revoke mid-batch.
      { id: "gpt-slow", provider: "oa", upstream: "stub-gpt@slow" },
      { id: "gpt-fail", provider: "oa", upstream: "stub-gpt@fail" },
    ]),
    ...options,
    harness: {
      ...options.harness,
      config: (c) => {
        c.scheduler.poll_ms = 20;
        c.batches.retry_backoff_ms = 0;
        options.harness?.config?.(c);
      },
    },
  });
}

export const chatLine = (i: number, model = "gpt-test") => ({
  custom_id: `r${i}`,
  method: "POST",
  url: "/v1/chat/completions",
  body: { model, messages: [{ role: "user", content: `question number ${i}` }] },
});

export const jsonl = (lines: unknown[]): string => lines.map((l) => `${JSON.stringify(l)}\n`).join("");

export async function uploadBatchFile(g: Gateway, lines: unknown[], openai = g.openai) {
  return openai.files.create({ file: await toFile(Buffer.from(jsonl(lines)), "batch.jsonl"), purpose: "batch" });
}

export async function runBatch(g: Gateway, lines: unknown[], endpoint = "/v1/chat/completions"): Promise<Batch> {
  const file = await uploadBatchFile(g, lines);
  return g.openai.batches.create({ input_file_id: file.id, endpoint: endpoint as "/v1/chat/completions", completion_window: "24h" });
}

const ENDED = ["completed", "failed", "expired", "cancelled"];

/** Polls until the batch reaches one of `statuses` (default: any end), bounded. */
export async function waitFor(g: Gateway, id: string, statuses: string[] = ENDED, until?: (b: Batch) => boolean): Promise<Batch> {
  for (let i = 0; i < 1500; i++) {
    const b = await g.openai.batches.retrieve(id);
    if (statuses.includes(b.status) && (!until || until(b))) return b;
    if (ENDED.includes(b.status) && !statuses.includes(b.status)) throw new Error(`batch ended ${b.status}, not ${statuses.join("/")}: ${JSON.stringify(b)}`);
    await Bun.sleep(10);
  }
  throw new Error(`batch ${id} did not reach ${statuses.join("/")}`);
}

/** The JSONL lines of an output or error file, parsed. */
export async function fileJson(g: Gateway, id: string | null | undefined): Promise<any[]> {
  if (!id) return [];
  const text = await (await g.openai.files.content(id)).text();
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export const chatCalls = (g: Gateway) => g.stub.requests.filter((r) => r.path === "/v1/chat/completions");
