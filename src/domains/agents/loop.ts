/**
 * One run of a hosted agent, the scheduler job agents.run:
 *
 *   1. the run must still be queued (a cancelled or finished run is left alone; one found
 *      "running" was cut off by a process that died, and fails as interrupted — its steps may
 *      have had effects, so it is never replayed); the agent must be live and enabled (else
 *      cancelled); its key must still be a credential (else failed with the key's refusal).
 *   2. the loop: call the model (POST /v1/chat/completions' pipeline, under the agent's key,
 *      svc_run_id = the run id) with the instructions, the input and the functions the agent
 *      may call; run each tool call it asks for and feed the results back; stop on a reply
 *      with no tool call (succeeded, the reply is the output, sealed), after max_steps model
 *      turns (failed: max_steps), when the run's receipts reach the per-run budget
 *      (failed: budget_exhausted), when the meter refuses (failed with its type:
 *      insufficient_credit, spend_cap_reached, …) or at agents.run_timeout_secs (run_timeout).
 *
 * Every model call and tool call is metered and receipted into the run; each is a step row
 * (names, status, cost, receipt id — never content). The budget is checked before every call
 * from the receipts themselves, so a run stops at the first call after its spend reaches the
 * budget: the overshoot is at most the last call's cost (docs/agents.md).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../core/errors.ts";
import type { Job } from "../../core/scheduler.ts";
import type { Context } from "../../context.ts";
import { serveChatCompletion } from "../inference/index.ts";
import { type ApiKeyPrincipal, principalOfKey } from "../keys/index.ts";
import { type FunctionTool, RECEIPT_META, type ReceiptMeta, refusalOf } from "../mcp/index.ts";
import { RECEIPT_HEADERS, runTotals } from "../receipts/index.ts";
import { MAX_TOOL_RESULT } from "./limits.ts";
import { inputAad, outputAad, runRow, type RunRow } from "./runs.ts";
import { type AgentRow, agentRow, instructionsAad } from "./store.ts";
import { runFunctions } from "./tools.ts";

type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Why a run ended other than with an answer. */
class RunStop extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: "failed" | "cancelled" = "failed",
  ) {
    super(message);
  }
}

interface Step {
  kind: "model" | "tool";
  name: string;
  status: string;
  cost: number;
  receiptId: string | null;
  durationMs: number;
}

class RunLog {
  private seq = 0;
  turns = 0;
  /** What the run's receipts add up to (the budget's measure), as of the last step. */
  spent = 0;

  constructor(
    private readonly ctx: Context,
    readonly run: RunRow,
  ) {}

  step(s: Step): void {
    this.ctx.db
      .query("INSERT INTO agent_run_steps (run_id, seq, kind, name, status, cost_micro_usd, receipt_id, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(this.run.id, this.seq++, s.kind, s.name, s.status, s.cost, s.receiptId, Math.round(s.durationMs), this.ctx.clock.now());
    // Every receipted call of the run is a step, so the total read here stays current until the next one.
    this.spent = runTotals(this.ctx, this.run.account_id, this.run.id)?.cost ?? 0;
    this.ctx.db.query("UPDATE agent_runs SET turns = ?, cost_micro_usd = ? WHERE id = ?").run(this.turns, this.spent, this.run.id);
  }
}

function finish(ctx: Context, run: RunRow, end: { status: "succeeded" | "failed" | "cancelled"; output?: string; errorType?: string; errorMessage?: string }): void {
  ctx.db
    .query("UPDATE agent_runs SET status = ?, output_sealed = ?, error_type = ?, error_message = ?, cost_micro_usd = ?, finished_at = ? WHERE id = ?")
    .run(
      end.status,
      end.output === undefined ? null : ctx.sealer.seal(end.output, outputAad(run.id)),
      end.errorType ?? null,
      end.errorMessage ?? null,
      runTotals(ctx, run.account_id, run.id)?.cost ?? 0,
      ctx.clock.now(),
      run.id,
    );
}

/** The scheduler job's handler. Never throws for what a run meets; the run's row says how it ended. */
export async function executeRun(ctx: Context, job: Job, jobSignal: AbortSignal): Promise<void> {
  const run = runRow(ctx, String(job.payload.run_id));
  if (!run) return;
  if (run.status === "running") {
    finish(ctx, run, { status: "failed", errorType: "interrupted", errorMessage: "svc stopped while the run was in progress; it was not repeated, since its steps may have had effects" });
    return;
  }
  if (run.status !== "queued") return;
  const agent = agentRow(ctx, run.agent_id);
  if (!agent || agent.deleted_at !== null || agent.enabled !== 1) {
    finish(ctx, run, { status: "cancelled", errorType: "cancelled", errorMessage: agent?.deleted_at ? "the agent was deleted" : "the agent is gated off" });
    return;
  }
  let principal: ApiKeyPrincipal;
  try {
    principal = principalOfKey(ctx, agent.key_id);
  } catch (err) {
    const e = err instanceof ApiError ? err : null;
    finish(ctx, run, { status: "failed", errorType: e?.type ?? "key_refused", errorMessage: `the agent's key was refused: ${e?.message ?? String(err)}` });
    return;
  }
  ctx.db.query("UPDATE agent_runs SET status = 'running', started_at = ? WHERE id = ?").run(ctx.clock.now(), run.id);

  const signal = AbortSignal.any([jobSignal, AbortSignal.timeout(ctx.config.agents.run_timeout_secs * 1000)]);
  const log = new RunLog(ctx, run);
  try {
    const output = await loop(ctx, agent, principal, log, signal);
    finish(ctx, run, { status: "succeeded", output });
  } catch (err) {
    if (err instanceof RunStop) finish(ctx, run, { status: err.status, errorType: err.type, errorMessage: err.message });
    else if (jobSignal.aborted) finish(ctx, run, { status: "failed", errorType: "interrupted", errorMessage: "svc stopped while the run was in progress; it was not repeated" });
    else if (signal.aborted) finish(ctx, run, { status: "failed", errorType: "run_timeout", errorMessage: `the run took longer than ${ctx.config.agents.run_timeout_secs} seconds` });
    else if (err instanceof ApiError) finish(ctx, run, { status: "failed", errorType: err.type, errorMessage: err.message });
    else {
      ctx.log.error("an agent run failed unexpectedly", { run_id: run.id, error: err instanceof Error ? err.message : String(err) });
      finish(ctx, run, { status: "failed", errorType: "internal_error", errorMessage: "the run failed inside svc; the operator's log has the details" });
    }
  }
}

async function loop(ctx: Context, agent: AgentRow, principal: ApiKeyPrincipal, log: RunLog, signal: AbortSignal): Promise<string> {
  let fns: FunctionTool[];
  try {
    fns = await runFunctions(ctx, agent, principal, log.run.id, signal);
  } catch (err) {
    const refusal = refusalOf(err);
    throw new RunStop("mcp_server_unavailable", `an MCP server of the agent could not list its tools: ${refusal?.message ?? (err instanceof Error ? err.message : String(err))}`);
  }
  const messages: ChatMessage[] = [
    { role: "system", content: ctx.sealer.openText(agent.instructions_sealed, instructionsAad(agent.id)) },
    { role: "user", content: ctx.sealer.openText(log.run.input_sealed, inputAad(log.run.id)) },
  ];
  const tools = fns.map((f) => ({ type: "function", function: { name: f.name, description: f.description, parameters: f.parameters } }));
  const budget = agent.budget_micro_usd_per_run;
  const checkBudget = () => {
    if (budget === null) return;
    const spent = log.spent;
    if (spent >= budget) throw new RunStop("budget_exhausted", `the run spent ${spent} micro-USD, reaching its budget of ${budget}`);
  };

  for (let turn = 0; turn < agent.max_steps; turn++) {
    checkBudget();
    log.turns = turn + 1;
    const reply = await callModel(ctx, agent, principal, log, messages, tools, signal);
    const calls = reply.tool_calls ?? [];
    if (!calls.length) return reply.content ?? "";
    messages.push({ role: "assistant", content: reply.content ?? null, tool_calls: calls });
    for (const call of calls) {
      checkBudget();
      messages.push({ role: "tool", tool_call_id: call.id, content: await callTool(fns, call, log, signal) });
    }
  }
  throw new RunStop("max_steps", `the agent made ${agent.max_steps} model calls without a final answer (max_steps)`);
}

async function callModel(
  ctx: Context,
  agent: AgentRow,
  principal: ApiKeyPrincipal,
  log: RunLog,
  messages: ChatMessage[],
  tools: unknown[],
  signal: AbortSignal,
): Promise<{ content: string | null; tool_calls?: ToolCall[] }> {
  const started = performance.now();
  let res: Response;
  try {
    res = await serveChatCompletion(ctx, principal, { model: agent.model, messages, ...(tools.length ? { tools } : {}), svc_run_id: log.run.id }, signal);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    log.step({ kind: "model", name: agent.model, status: "refused", cost: 0, receiptId: null, durationMs: performance.now() - started });
    throw new RunStop(err.type, `the model call was refused: ${err.message}`);
  }
  const body = (await res.json()) as { choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[] };
  log.step({
    kind: "model",
    name: agent.model,
    status: "succeeded",
    cost: Number(res.headers.get(RECEIPT_HEADERS.cost) ?? 0),
    receiptId: res.headers.get(RECEIPT_HEADERS.id),
    durationMs: performance.now() - started,
  });
  const message = body.choices?.[0]?.message;
  if (!message) throw new RunStop("model_error", "the model answered with no message");
  return { content: message.content ?? null, tool_calls: message.tool_calls?.filter((c) => c?.type === "function" && typeof c.function?.name === "string") };
}

/** Runs one tool call and answers what the model reads back; a refusal of the meter stops the run. */
async function callTool(fns: FunctionTool[], call: ToolCall, log: RunLog, signal: AbortSignal): Promise<string> {
  const started = performance.now();
  const fn = fns.find((f) => f.name === call.function.name);
  const record = (status: string, meta: ReceiptMeta | null) =>
    log.step({ kind: "tool", name: call.function.name, status, cost: meta?.cost_micro_usd ?? 0, receiptId: meta?.id ?? null, durationMs: performance.now() - started });
  if (!fn) {
    record("unknown_tool", null);
    return `error: there is no tool named "${call.function.name}" (the tools are ${fns.map((f) => f.name).join(", ") || "none"})`;
  }
  let args: unknown;
  try {
    args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
  } catch {
    record("invalid_arguments", null);
    return "error: the arguments are not valid JSON";
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    record("invalid_arguments", null);
    return "error: the arguments must be a JSON object";
  }
  let result: CallToolResult;
  try {
    result = await fn.call(args as Record<string, unknown>, signal);
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    record("refused", null);
    // The meter's refusals end the run; a bad call (unknown name, arguments) is the model's to fix.
    if (refusal.status !== null && [401, 402, 403, 429].includes(refusal.status)) throw new RunStop(refusal.type, `the tool call ${call.function.name} was refused: ${refusal.message}`);
    return `error: ${refusal.message}`;
  }
  const meta = (result._meta?.[RECEIPT_META] as ReceiptMeta | undefined) ?? null;
  record(result.isError ? "tool_error" : "succeeded", meta);
  const text = result.content
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n");
  const out = result.isError ? `error: ${text}` : text;
  return out.length > MAX_TOOL_RESULT ? `${out.slice(0, MAX_TOOL_RESULT)}\n[cut at ${MAX_TOOL_RESULT} characters]` : out;
}
