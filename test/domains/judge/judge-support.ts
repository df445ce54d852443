/**
 * A gateway for the judge tests: startGateway with a catalogue of stand-in jurors whose
 * upstream names differ, so `[[say@juror-a …]]` in a question scripts each juror's answer
 * (test/support/upstream.ts), plus one juror whose upstream always fails and an embedding model.
 */
import { createHash } from "node:crypto";
import type { UpstreamStub } from "../../support/upstream.ts";
import { bearer } from "../../support/harness.ts";
import { type Gateway, type GatewayOptions, PRICES, startGateway } from "../inference/inference-support.ts";

export const JURORS = ["juror-a", "juror-b", "juror-c"] as const;
/** Its upstream name carries the stub's `@fail` behaviour: every call answers 500. */
export const FAILING_JUROR = "juror-down";
/** `@slow`: the stub waits 300 ms before answering, so these are still in flight when another juror is refused. */
export const SLOW_JURORS = ["juror-slow-1", "juror-slow-2"] as const;

export function jurorCatalog(stub: UpstreamStub) {
  return {
    providers: [{ name: "oa", kind: "openai" as const, base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", regions: ["us"] }],
    models: [
      ...JURORS.map((id) => ({ id, provider: "oa", upstream: id })),
      { id: FAILING_JUROR, provider: "oa", upstream: `${FAILING_JUROR}@fail` },
      ...SLOW_JURORS.map((id) => ({ id, provider: "oa", upstream: `${id}@slow` })),
      { id: "embed-test", provider: "oa", upstream: "stub-embed", type: "embedding" as const, input_micro_usd_per_mtok: PRICES.embed, output_micro_usd_per_mtok: undefined },
    ],
  };
}

export const VERDICT_PRICE = 1000;

export function startJudge(options: GatewayOptions = {}): Promise<Gateway> {
  return startGateway({
    catalog: jurorCatalog,
    ...options,
    harness: {
      ...options.harness,
      config: (c) => {
        c.judge.verdict_price_micro_usd = VERDICT_PRICE;
        options.harness?.config?.(c);
      },
    },
  });
}

/** A scripted answer for one juror: `[[say@MODEL TEXT]]`. */
export const says = (juror: string, text: string) => `[[say@${juror} ${text}]]`;
/** A scripted vote for one juror. */
export const votes = (juror: string, choice: string, rationale: string) => says(juror, JSON.stringify({ choice, rationale }));

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export const auth = (g: Gateway, key = g.key) => ({ headers: bearer(key) });

export function judge(g: Gateway, body: unknown, key = g.key) {
  return g.h.json("POST", "/v1/judge/verdicts", { ...auth(g, key), body });
}

/** Every usage event and receipt of the test account (what was billed). */
export function billed(g: Gateway) {
  const events = g.h.ctx.db.query<{ kind: string; cost_micro_usd: number }, [string]>("SELECT kind, cost_micro_usd FROM usage_events WHERE account_id = ?").all(g.accountId);
  const receipts = g.h.ctx.db.query<{ id: string }, [string]>("SELECT id FROM receipts WHERE account_id = ?").all(g.accountId);
  return { events, receipts };
}
