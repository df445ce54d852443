/**
 * The arena tests' gateway: the inference test gateway (real server, the stand-in upstream) with
 * stand-in models whose upstream names differ, so `[[say@UPSTREAM …]]` in a case gives each its
 * own answer; its catalogue written to svc.toml, so `svc arena …` commands (which open their own
 * context on the data dir) call the same stand-ins. Also the CLI runner and a canonical JSON of
 * the test's own, to recompute what the run's statement fingerprints.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { saveCatalog } from "../../../src/domains/inference/catalog.ts";
import { tempDir } from "../../support/harness.ts";
import { svcInProcess } from "../../support/cli-inprocess.ts";
import { type Gateway, startGateway, withModels } from "../inference/inference-support.ts";

export const USD = 1_000_000;

export async function startArenaGateway(): Promise<Gateway> {
  const g = await startGateway({
    catalog: withModels([
      { id: "strong", provider: "oa", upstream: "stub-strong" },
      { id: "weak", provider: "oa", upstream: "stub-weak" },
      { id: "judge-a", provider: "oa", upstream: "stub-judge" },
    ]),
  });
  const h = g.h;
  saveCatalog(h.ctx.config.config_path, {
    providers: h.ctx.config.providers.map((p) => ({ ...p })),
    models: [...h.ctx.catalog.current().models.values()].map(({ created: _created, ...m }) => ({ ...m })),
  });
  return g;
}

/**
 * Three cases, scripted by upstream name: strong answers all three right, weak fails the first,
 * any other stand-in (gpt-test, claude-test: "reply to: …") fails the first two. The judge
 * passes every answer, so the third case is passed by all.
 */
export const CASES = [
  { input: "capital of France? [[say@stub-strong Paris]] [[say@stub-weak Lyon]]", expected: "Paris", assert: "exact" },
  { input: "what is six times seven? [[say@stub-strong The answer is 42.]] [[say@stub-weak It is 42.]]", expected: "42", assert: "contains" },
  { input: "is water wet? [[say@stub-strong yes]] [[say@stub-weak no]]", rubric: '[[say@stub-judge {"pass": true}]] the answer must be yes', assert: "judge" },
];

export const suiteFile = (over: Record<string, unknown> = {}) => ({
  slug: "basics",
  name: "Basics",
  description: "three small questions",
  methodology_version: "1",
  judge_model: "judge-a",
  cases: CASES,
  ...over,
});

/** Writes a suite file to a temp dir; returns its path. */
export function writeSuite(content: unknown): string {
  const path = join(tempDir("arena-suite"), "suite.json");
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

export const svc = svcInProcess;

/** Canonical JSON written apart from svc's: sorted keys, integers only, no whitespace. */
export function canonical(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

export const sha256 = (text: string): string => new Bun.CryptoHasher("sha256").update(text).digest("hex");
