/**
 * svc arena suites add|list, svc arena run: the operator's side of the arena. Suites and runs
 * are public records, so they are made here, on the host, never over HTTP. A run blocks until
 * every case has been called and prints the run (the public GET /v1/arena/runs/:id shows the
 * same record).
 */
import { readFileSync } from "node:fs";
import { formatUsd } from "../../core/money.ts";
import { accountOption, type Command, EXIT_FAILURE, type Group, locationOptions, requireAccount, str, UsageError } from "../../cli/command.ts";
import { runSuite } from "./runs.ts";
import { addSuite, listSuites } from "./suites.ts";

const json = { type: "boolean", description: "print JSON" } as const;

function readSuiteFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const add: Command = {
  name: "arena suites add",
  summary: "Add one methodology version of a suite from a JSON file (the same file again: no change)",
  options: { ...locationOptions, json, file: { type: "string", value: "PATH", description: "the suite file: {slug, name, methodology_version, cases, description?, judge_model?, publish_cases?}" } },
  details: "A version is fixed once added: changed cases need a new methodology_version, which becomes the suite's current version. See docs/arena.md.",
  run: ({ values }, host) => {
    const file = str(values.file);
    if (!file) throw new UsageError("--file PATH is required");
    const input = readSuiteFile(file);
    return host.withContext(values, (ctx) => {
      const { suite, added } = addSuite(ctx, input);
      if (values.json) return void console.log(JSON.stringify({ ...suite, added }, null, 2));
      console.log(
        added
          ? `added ${suite.slug} methodology version ${suite.methodology_version} (${suite.case_count} cases, cases_sha256 ${suite.cases_sha256})`
          : `${suite.slug} methodology version ${suite.methodology_version} is already this definition; no change`,
      );
    });
  },
};

const list: Command = {
  name: "arena suites list",
  summary: "Suites on their current methodology version, with every version and completed runs",
  options: { ...locationOptions, json },
  run: ({ values }, host) =>
    host.withContext(values, (ctx) => {
      const suites = listSuites(ctx);
      if (values.json) return void console.log(JSON.stringify({ suites }, null, 2));
      if (!suites.length) return void console.log("no suites; add one with 'svc arena suites add --file suite.json'");
      for (const s of suites) {
        console.log(`${s.slug}  v${s.methodology_version}  ${s.case_count} cases  ${s.completed_runs} completed run(s)  versions: ${s.versions.join(", ")}  ${s.name}`);
      }
    }),
};

const run: Command = {
  name: "arena run",
  summary: "Run a model over a suite: every case call metered and receipted on the account's credit",
  options: {
    ...locationOptions,
    json,
    suite: { type: "string", value: "SLUG", description: "the suite (required)" },
    version: { type: "string", value: "VERSION", description: "its methodology version (default: the current one)" },
    model: { type: "string", value: "MODEL", description: "any chat model the catalogue resolves, engine/<slug> included (required)" },
    account: accountOption,
  },
  details: "Exits 1 when the run failed (402 insufficient credit, an upstream error): the failed run is stored, with what it spent, and never ranks.",
  run: async ({ values }, host) => {
    const suite = str(values.suite);
    const model = str(values.model);
    if (!suite) throw new UsageError("--suite SLUG is required");
    if (!model) throw new UsageError("--model MODEL is required");
    const accountId = requireAccount(values);
    const version = str(values.version);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    try {
      return await host.withContext(values, async (ctx) => {
        const r = await runSuite(ctx, { suite, version, model, accountId, signal: stop.signal });
        if (values.json) console.log(JSON.stringify(r, null, 2));
        else {
          const score = r.status === "completed" ? `${r.passed}/${r.total} passed` : `FAILED (${r.error!.type}: ${r.error!.message})`;
          console.log(`${r.id}  ${r.suite} v${r.methodology_version}  ${r.model}  ${score}  ${formatUsd(r.cost_micro_usd)}  ${r.receipts.length} receipt(s)`);
        }
        return r.status === "completed" ? undefined : EXIT_FAILURE;
      });
    } finally {
      process.off("SIGINT", onSignal);
    }
  },
};

export const arenaGroup: Group = {
  name: "arena",
  summary: "The arena: benchmark suites and receipted runs of models over them",
  commands: [{ name: "arena suites", summary: "Suites: add a methodology version, list", commands: [add, list] }, run],
};
