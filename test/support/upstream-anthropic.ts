/**
 * The upstream stub's Anthropic face: POST /v1/messages, plain and streamed, in the shapes the
 * official `@anthropic-ai/sdk` reads. A stream is exactly message_start, then per content block
 * content_block_start, content_block_delta…, content_block_stop, then message_delta (stop_reason,
 * usage.output_tokens) and message_stop (a ping only when x-stub-ping: 1).
 */
import type { Reply, StubCall } from "./upstream.ts";
import { countText, eventFrame, generate, imagesIn, piecesOf, sampleFromSchema, scriptedCall, textOf } from "./upstream-generate.ts";

const PER_MESSAGE = 3;
const PER_IMAGE = 85;
/** The text a tool-calling reply opens with, as Claude usually does. */
const TOOL_PREAMBLE = "Using the tool.";

function promptTokens(body: any): number {
  let tokens = countText(textOf(body.system)) + (body.tools ? countText(JSON.stringify(body.tools)) : 0);
  for (const m of body.messages) {
    tokens += PER_MESSAGE + countText(textOf(m.content)) + PER_IMAGE * imagesIn(m.content);
    if (Array.isArray(m.content)) for (const b of m.content) if (b?.type === "tool_use") tokens += countText(JSON.stringify(b.input ?? {}));
  }
  return tokens;
}

function chooseTool(body: any, lastText: string, lastIsToolResult: boolean): { name: string; schema: unknown } | null {
  const tools = body.tools;
  const choice = body.tool_choice;
  if (!Array.isArray(tools) || !tools.length || choice?.type === "none" || lastIsToolResult) return null;
  const pick = choice?.type === "tool" ? tools.find((t: any) => t.name === choice.name) : choice?.type === "any" || /use the tool/i.test(lastText) ? tools[0] : undefined;
  return pick ? { name: pick.name, schema: pick.input_schema } : null;
}

export function anthropicMessages(call: StubCall): Reply {
  const { body, knobs } = call;
  if (!Array.isArray(body.messages) || !body.messages.length) throw new Error("messages: must be a non-empty array");
  if (typeof body.max_tokens !== "number") throw new Error("max_tokens: Field required");
  const lastUser = [...body.messages].reverse().find((m: any) => m.role === "user");
  const lastIsToolResult = Array.isArray(lastUser?.content) && lastUser.content.some((b: any) => b?.type === "tool_result");
  const lastText = textOf(lastUser?.content);
  const offered = Array.isArray(body.tools) ? body.tools.map((t: any) => t.name) : [];
  const priorCalls = body.messages.reduce((n: number, m: any) => n + (Array.isArray(m.content) ? m.content.filter((b: any) => b?.type === "tool_use").length : 0), 0);
  const userTexts = body.messages.filter((m: any) => m.role === "user").map((m: any) => textOf(m.content));
  const scripted = scriptedCall([textOf(body.system), ...userTexts], priorCalls, offered);
  const tool = scripted ? { name: scripted.name, schema: null, args: scripted.args } : chooseTool(body, lastText, lastIsToolResult);
  const g = generate({ model: call.model, prompt: lastText, images: imagesIn(lastUser?.content), maxTokens: body.max_tokens, outputTokens: knobs.outputTokens, stop: body.stop_sequences });
  const n = call.nextId();
  const input = tool ? ("args" in tool ? tool.args : (sampleFromSchema(tool.schema) as Record<string, unknown>)) : null;
  const inputJson = input ? JSON.stringify(input) : "";
  const toolUse = tool ? { type: "tool_use", id: `toolu_stub_${n}`, name: tool.name, input } : null;
  const content: any[] = tool ? [{ type: "text", text: TOOL_PREAMBLE }, toolUse] : [{ type: "text", text: g.text }];
  const outputTokens = tool ? countText(TOOL_PREAMBLE) + countText(tool.name) + countText(inputJson) : g.tokens;
  const stopReason = tool ? "tool_use" : g.finish === "length" ? "max_tokens" : g.finish === "stop_sequence" ? "stop_sequence" : "end_turn";
  const stopSequence = tool ? null : g.stopSequence;
  const prompt = promptTokens(body);
  const cached = Math.min(knobs.cachedTokens, prompt);
  const usage = { input_tokens: prompt - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached, output_tokens: outputTokens };
  const message = { id: `msg_stub_${n}`, type: "message", role: "assistant", model: body.model, content, stop_reason: stopReason, stop_sequence: stopSequence, usage };

  if (!body.stream) return { json: message };

  const frames = [eventFrame("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } })];
  const blocks: { start: unknown; deltas: unknown[] }[] = tool
    ? [
        { start: { type: "text", text: "" }, deltas: piecesOf(TOOL_PREAMBLE).map((text) => ({ type: "text_delta", text })) },
        { start: { ...toolUse, input: {} }, deltas: piecesOf(inputJson).map((partial_json) => ({ type: "input_json_delta", partial_json })) },
      ]
    : [{ start: { type: "text", text: "" }, deltas: g.pieces.map((text) => ({ type: "text_delta", text })) }];
  blocks.forEach((block, index) => {
    frames.push(eventFrame("content_block_start", { type: "content_block_start", index, content_block: block.start }));
    if (index === 0 && knobs.ping) frames.push(eventFrame("ping", { type: "ping" }));
    for (const delta of block.deltas) frames.push(eventFrame("content_block_delta", { type: "content_block_delta", index, delta }));
    frames.push(eventFrame("content_block_stop", { type: "content_block_stop", index }));
  });
  frames.push(eventFrame("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage: { output_tokens: outputTokens } }));
  frames.push(eventFrame("message_stop", { type: "message_stop" }));
  return { frames };
}
