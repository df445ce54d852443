/**
 * Whether a model's output passes its case. Each verdict carries a reason from a fixed set of
 * phrases: it is stored, so it must say why without quoting the output, the expected text or the
 * schema.
 *
 *   exact        the output, surrounding whitespace trimmed, equals `expected` (trimmed too)
 *   contains     the output contains `expected` (case-sensitive)
 *   regex        the pattern `expected` (with `flags`) matches somewhere in the output
 *   json_schema  the output (or its one fenced code block) is JSON valid against `schema`
 *   judge        a judge model, asked for a JSON object, answers {"pass": true}
 */
import type { Context } from "../../context.ts";
import { type Caller, type ChatCallAnswer, type ChatCallRequest, completeChat } from "../inference/index.ts";
import { caseRegExp, type EvalCase } from "./cases.ts";
import { compileSchema, failedKeyword, jsonOfReply } from "./json-schema.ts";

export interface Verdict {
  passed: boolean;
  reason: string;
}

const verdict = (passed: boolean, reason: string): Verdict => ({ passed, reason });

/** The verdict of every assert but judge, which needs a model call (judgeOutput). */
export function checkOutput(c: EvalCase, output: string): Verdict {
  switch (c.assert) {
    case "exact":
      return output.trim() === c.expected!.trim() ? verdict(true, "output equals the expected text") : verdict(false, "output differs from the expected text");
    case "contains":
      return output.includes(c.expected!) ? verdict(true, "output contains the expected text") : verdict(false, "output does not contain the expected text");
    case "regex":
      return caseRegExp(c).test(output) ? verdict(true, "output matches the pattern") : verdict(false, "output does not match the pattern");
    case "json_schema": {
      const json = jsonOfReply(output);
      if (!json) return verdict(false, "output is not JSON");
      const compiled = compileSchema(c.schema);
      // Checked when the eval was created; a validator that stopped compiling is a fault of the case, not a pass.
      if ("reason" in compiled) return verdict(false, "the case's schema no longer compiles");
      return compiled.validate(json.value) ? verdict(true, "output is JSON valid against the schema") : verdict(false, `output does not match the schema (${failedKeyword(compiled.validate.errors)})`);
    }
    case "judge":
      throw new Error("a judge case is graded by judgeOutput");
  }
}

const JUDGE_SYSTEM = [
  "You grade another model's answer against a rubric.",
  'Reply with a JSON object and nothing else: {"pass": true} when the answer meets the rubric, {"pass": false} when it does not.',
].join(" ");

function judgeMessages(c: EvalCase, output: string): ChatCallRequest["messages"] {
  const user = [`Input given to the model:\n${c.input}`];
  if (c.expected !== undefined) user.push(`Reference answer:\n${c.expected}`);
  user.push(`Answer to grade:\n${output}`);
  return [
    { role: "system", content: `${JUDGE_SYSTEM}\n\nRubric:\n${c.rubric!}` },
    { role: "user", content: user.join("\n\n") },
  ];
}

/** The judge model's verdict on an output, and its call (metered and receipted like the case's own). */
export async function judgeOutput(ctx: Context, caller: Caller, c: EvalCase, output: string, judgeModel: string, signal?: AbortSignal, runId?: string): Promise<{ verdict: Verdict; call: ChatCallAnswer }> {
  const call = await completeChat(ctx, { caller, model: judgeModel, messages: judgeMessages(c, output), json: true, exactModel: true, signal, runId });
  const answer = jsonOfReply(call.text)?.value as { pass?: unknown } | undefined;
  const pass = answer && typeof answer === "object" ? answer.pass : undefined;
  if (pass === true) return { verdict: verdict(true, "the judge passed the output"), call };
  if (pass === false) return { verdict: verdict(false, "the judge failed the output"), call };
  return { verdict: verdict(false, 'the judge did not answer {"pass": true|false}'), call };
}
