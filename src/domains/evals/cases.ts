/**
 * An eval's cases: the rules each assert kind puts on the fields of a case (beyond what the
 * request schema checks), and their sealing at rest.
 *
 * A field that does not apply to the case's assert is refused rather than ignored, so a
 * misplaced `schema` or `rubric` is never silently dropped. Every fault is named by its path
 * (`cases.3.expected`, dotted like the schema's own errors), up to ten at once.
 */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { checkChatModel } from "../inference/index.ts";
import { compileSchema } from "./json-schema.ts";
import { type AssertKind, PATTERN_MAX } from "./limits.ts";

export interface EvalCase {
  input: string;
  system?: string;
  /** exact/contains: the text; regex: the pattern; judge: a reference answer shown to the judge. */
  expected?: string;
  assert: AssertKind;
  /** regex only: RegExp flags. */
  flags?: string;
  /** json_schema only. */
  schema?: Record<string, unknown>;
  /** judge only: the judging model (default: the eval's model) and what a passing answer is. */
  judge_model?: string;
  rubric?: string;
}

type Field = "expected" | "flags" | "schema" | "judge_model" | "rubric";

/** Per assert kind: the fields it needs and the fields it takes. */
const FIELDS: Record<AssertKind, { required: Field[]; allowed: Field[] }> = {
  exact: { required: ["expected"], allowed: ["expected"] },
  contains: { required: ["expected"], allowed: ["expected"] },
  regex: { required: ["expected"], allowed: ["expected", "flags"] },
  json_schema: { required: ["schema"], allowed: ["schema"] },
  judge: { required: ["rubric"], allowed: ["rubric", "expected", "judge_model"] },
};

const MAX_LISTED = 10;

/**
 * A quantified group that itself holds a quantifier — `(a+)+`, `(\w*x?)*`, `(a|aa){2,}` — the
 * shape behind catastrophic backtracking. JavaScript regexes have no timeout and a run grades in
 * the server's process, so such a pattern is refused when the eval is created (a heuristic:
 * it also refuses some harmless patterns, and says how to rewrite them).
 */
export function nestedQuantifier(pattern: string): boolean {
  const groups: boolean[] = [];
  let quantifiedInside = false;
  let inClass = false;
  const isQuantifier = (ch: string | undefined) => ch === "*" || ch === "+" || ch === "{" || ch === "?";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") inClass = true;
    else if (ch === "(") {
      groups.push(quantifiedInside);
      quantifiedInside = false;
    } else if (ch === ")") {
      const inner = quantifiedInside;
      quantifiedInside = groups.pop() ?? false;
      const next = pattern[i + 1];
      if (isQuantifier(next) && next !== "?" && inner) return true;
      if (inner) quantifiedInside = true;
    } else if ((ch === "*" || ch === "+" || ch === "{") && i > 0) quantifiedInside = true;
    else if (ch === "|") quantifiedInside = true; // alternation inside a repeated group backtracks the same way
  }
  return false;
}

/** The regex of a case, as a run uses it. */
export const caseRegExp = (c: EvalCase): RegExp => new RegExp(c.expected!, c.flags ?? "");

function faultsOf(c: EvalCase, at: string): { param: string; reason: string }[] {
  const faults: { param: string; reason: string }[] = [];
  const rule = FIELDS[c.assert];
  for (const field of rule.required) if (c[field] === undefined) faults.push({ param: `${at}.${field}`, reason: `is required for assert ${c.assert}` });
  for (const field of ["expected", "flags", "schema", "judge_model", "rubric"] as const) {
    if (c[field] !== undefined && !rule.allowed.includes(field)) faults.push({ param: `${at}.${field}`, reason: `does not apply to assert ${c.assert}` });
  }
  if (faults.length) return faults;
  if (c.assert === "regex") {
    if (c.expected!.length > PATTERN_MAX) return [{ param: `${at}.expected`, reason: `a pattern is at most ${PATTERN_MAX} characters` }];
    try {
      new RegExp("", c.flags ?? "");
    } catch {
      return [{ param: `${at}.flags`, reason: "each flag (i, m, s, u) at most once" }];
    }
    try {
      caseRegExp(c);
    } catch (err) {
      return [{ param: `${at}.expected`, reason: `is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}` }];
    }
    if (nestedQuantifier(c.expected!)) {
      return [{ param: `${at}.expected`, reason: "repeats a group that itself repeats or alternates (e.g. (a+)+): such patterns can backtrack for minutes; repeat the inner part only" }];
    }
  }
  if (c.assert === "json_schema") {
    const compiled = compileSchema(c.schema);
    if ("reason" in compiled) return [{ param: `${at}.schema`, reason: compiled.reason }];
  }
  return [];
}

/**
 * Checks every case (400 naming each fault, up to ten), then every judge model against the
 * catalogue (404 model_not_found naming the case's field).
 */
export function checkCases(ctx: Context, cases: EvalCase[]): void {
  const faults = cases.flatMap((c, i) => faultsOf(c, `cases.${i}`)).slice(0, MAX_LISTED);
  const first = faults[0];
  if (first) throw new ApiError(400, "invalid_request", `${first.param}: ${first.reason}`, { param: first.param, errors: faults });
  cases.forEach((c, i) => {
    if (c.judge_model !== undefined) checkChatModel(ctx, c.judge_model, `cases.${i}.judge_model`);
  });
}

/** How many cases of each assert kind: what the list shows in clear. */
export function assertCounts(cases: EvalCase[]): Partial<Record<AssertKind, number>> {
  const counts: Partial<Record<AssertKind, number>> = {};
  for (const c of cases) counts[c.assert] = (counts[c.assert] ?? 0) + 1;
  return counts;
}

/** Binds the sealed cases to their eval: JSON, so no choice of ids makes two AADs equal. */
const aad = (accountId: string, evalId: string): string => JSON.stringify(["evals", accountId, evalId]);

/** Only the fields a case has, in a fixed order (the request may carry them in any). */
const canonical = (c: EvalCase): EvalCase => {
  const out: EvalCase = { input: c.input, assert: c.assert };
  for (const field of ["system", "expected", "flags", "schema", "judge_model", "rubric"] as const) if (c[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = c[field];
  return out;
};

export const sealCases = (ctx: Context, accountId: string, evalId: string, cases: EvalCase[]): string =>
  ctx.sealer.seal(JSON.stringify(cases.map(canonical)), aad(accountId, evalId));

export const openCases = (ctx: Context, accountId: string, evalId: string, sealed: string): EvalCase[] =>
  JSON.parse(ctx.sealer.openText(sealed, aad(accountId, evalId))) as EvalCase[];
