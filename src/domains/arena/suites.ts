/**
 * Suites: one methodology version at a time, added by the operator (`svc arena suites add`),
 * read by anyone. The rules:
 *
 * - A version is fixed once added. Adding the same definition again is "no change"; a different
 *   definition under a version that exists is refused: changed cases are a new version, so every
 *   run on a version measured the same thing.
 * - The newest version added is the suite's current one (runs and the leaderboard default to it).
 * - Cases are an eval's cases, checked by the evals area's rules. A judge case is graded by its
 *   own judge_model or the suite's, never by the model under test (a model would grade itself).
 * - The cases are sealed at rest and served only when the operator set publish_cases;
 *   cases_sha256 (canonical JSON) pins them either way.
 */
import { Value } from "@sinclair/typebox/value";
import { canonicalJson } from "../../core/canonical-json.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { assertCounts, checkCases, type EvalCase } from "../evals/index.ts";
import { checkChatModel } from "../inference/index.ts";
import { MAX_SUITES_LISTED } from "./limits.ts";
import { SuiteFile } from "./models.ts";
import { completedRunCount, currentSuite, currentSuites, insertSuite, type SuiteRow, suiteVersion, versionsOf } from "./store.ts";

export interface SuiteDefinition {
  slug: string;
  name: string;
  description?: string;
  methodology_version: string;
  judge_model?: string;
  publish_cases?: boolean;
  cases: EvalCase[];
}

export interface SuiteView {
  slug: string;
  name: string;
  description: string | null;
  methodology_version: string;
  current_version: string;
  versions: string[];
  case_count: number;
  asserts: Partial<Record<EvalCase["assert"], number>>;
  cases_sha256: string;
  judge_model: string | null;
  completed_runs: number;
  created_at: string;
}

/** Binds sealed cases to their suite version: JSON, so no choice of names makes two AADs equal. */
const aad = (slug: string, version: string): string => JSON.stringify(["arena", slug, version]);

export const openSuiteCases = (ctx: Context, row: SuiteRow): EvalCase[] => JSON.parse(ctx.sealer.openText(row.cases, aad(row.slug, row.methodology_version))) as EvalCase[];

/** The first fault of a suite file against its schema, named by its dotted path (400). */
function checkShape(input: unknown): asserts input is SuiteDefinition {
  const first = Value.Errors(SuiteFile, input).First();
  if (!first) return;
  const param = first.path.slice(1).replaceAll("/", ".") || "suite";
  const reason = (first.schema as { error?: unknown }).error;
  throw invalidField(param, typeof reason === "string" ? reason : first.message.toLowerCase());
}

/** The dotted path of the first number canonical JSON cannot hold (a fraction, or beyond 2^53), if any. */
function firstNonInteger(value: unknown, path: string): string | null {
  if (typeof value === "number") return Number.isSafeInteger(value) ? null : path;
  if (!value || typeof value !== "object") return null;
  for (const [k, v] of Object.entries(value)) {
    const found = firstNonInteger(v, `${path}.${k}`);
    if (found) return found;
  }
  return null;
}

/** A judge case without a judge_model would be graded by the model under test. */
function checkJudges(ctx: Context, def: SuiteDefinition): void {
  if (def.judge_model !== undefined) checkChatModel(ctx, def.judge_model, "judge_model");
  const unjudged = def.cases.findIndex((c) => c.assert === "judge" && c.judge_model === undefined);
  if (unjudged >= 0 && def.judge_model === undefined) {
    throw invalidField(`cases.${unjudged}.judge_model`, "a judge case needs its own judge_model or the suite's judge_model: the model under test never grades itself");
  }
}

export const requireSuite = (ctx: Context, slug: string, version?: string): SuiteRow => {
  const row = version === undefined ? currentSuite(ctx, slug) : suiteVersion(ctx, slug, version);
  if (!row) throw notFound(version === undefined ? "suite" : "suite version");
  return row;
};

export function suiteView(ctx: Context, row: SuiteRow): SuiteView {
  const versions = versionsOf(ctx, row.slug);
  return {
    slug: row.slug,
    name: row.name,
    description: row.description,
    methodology_version: row.methodology_version,
    current_version: versions.at(-1)!,
    versions,
    case_count: row.case_count,
    asserts: JSON.parse(row.asserts) as SuiteView["asserts"],
    cases_sha256: row.cases_sha256,
    judge_model: row.judge_model,
    completed_runs: completedRunCount(ctx, row.slug, row.methodology_version),
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * Adds one version of a suite from its definition (the parsed suite file). Answers whether it
 * was added; the same definition again adds nothing.
 */
export function addSuite(ctx: Context, input: unknown): { suite: SuiteView; added: boolean } {
  checkShape(input);
  const def = input;
  checkCases(ctx, def.cases);
  const fraction = firstNonInteger(def.cases, "cases");
  // cases_sha256 is canonical JSON, as receipts are: integers only (a JSON Schema's 0.5 bound has no canonical form there).
  if (fraction) throw invalidField(fraction, "is not a whole number: the cases' fingerprint (canonical JSON) holds whole numbers only");
  checkJudges(ctx, def);
  const casesSha = sha256Hex(canonicalJson(def.cases));
  const definitionSha = sha256Hex(
    canonicalJson({ ...def, description: def.description ?? null, judge_model: def.judge_model ?? null, publish_cases: def.publish_cases ?? false }),
  );
  // Sealed before the transaction: the write lock is held for the insert only.
  const sealed = ctx.sealer.seal(JSON.stringify(def.cases), aad(def.slug, def.methodology_version));
  const added = ctx.tx.run(() => {
    const existing = suiteVersion(ctx, def.slug, def.methodology_version);
    if (existing) {
      if (existing.definition_sha256 === definitionSha) return false;
      throw new ApiError(
        409,
        "suite_version_exists",
        `suite ${def.slug} already has methodology version ${def.methodology_version} with another definition; a version is never changed: give the new cases a new methodology_version`,
        { param: "methodology_version" },
      );
    }
    insertSuite(ctx, {
      slug: def.slug,
      methodology_version: def.methodology_version,
      name: def.name,
      description: def.description ?? null,
      judge_model: def.judge_model ?? null,
      publish_cases: def.publish_cases ? 1 : 0,
      case_count: def.cases.length,
      asserts: JSON.stringify(assertCounts(def.cases)),
      cases_sha256: casesSha,
      definition_sha256: definitionSha,
      cases: sealed,
      created_at: ctx.clock.now(),
    });
    ctx.audit.record("cli", "arena.suite.add", def.slug, { methodology_version: def.methodology_version, cases_sha256: casesSha });
    return true;
  });
  return { suite: suiteView(ctx, requireSuite(ctx, def.slug, def.methodology_version)), added };
}

/** Every suite on its current version, by slug. */
export const listSuites = (ctx: Context): SuiteView[] => currentSuites(ctx, MAX_SUITES_LISTED).map((row) => suiteView(ctx, row));

/** One suite version (default: the current one), with its cases when they were published. */
export function getSuite(ctx: Context, slug: string, version?: string): SuiteView & { cases: EvalCase[] | null } {
  const row = requireSuite(ctx, slug, version);
  return { ...suiteView(ctx, row), cases: row.publish_cases ? openSuiteCases(ctx, row) : null };
}
