/**
 * Reads an OpenAI Chat stream (chat.completion.chunk objects) into plain steps — text, "a tool
 * call starts" (with its id and name), "more tool arguments" — for the translators that turn a
 * Chat stream into Anthropic events or Responses events. Both need the same tolerance for what
 * OpenAI-compatible servers really send:
 * - the tool call's name can only start a block once known; arguments that arrive before it
 *   are held back and released with the start;
 * - a tool call without an id gets a deterministic one from the caller;
 * - a tool-call delta without `index` (seen from some local servers) is matched by id, else
 *   taken as a new call when it carries an id, else as the continuation of the latest call;
 * - usage may arrive on its own final chunk (choices: []) or on the finish chunk;
 * - only choice 0 is read: translated requests always ask for one choice.
 */
import type { ChatChunk, ChatUsage } from "./types.ts";

export type ChatStep =
  | { kind: "text"; text: string }
  | { kind: "tool_start"; index: number; id: string; name: string }
  | { kind: "tool_args"; index: number; args: string };

interface ToolState {
  id?: string;
  name?: string;
  started: boolean;
  /** Argument text received before the call could be started. */
  held: string;
}

export class ChatChunkReader {
  finishReason: string | null = null;
  usage: ChatUsage | null = null;
  madeToolCalls = false;
  /** All text and tool arguments seen, for counting tokens when the upstream reports none. */
  produced = "";
  private readonly tools = new Map<number, ToolState>();
  private lastToolIndex = -1;

  /** @param fallbackToolId builds the id for a tool call the upstream sent without one. */
  constructor(private readonly fallbackToolId: (index: number) => string) {}

  read(chunk: ChatChunk): ChatStep[] {
    if (chunk.usage) this.usage = chunk.usage;
    const steps: ChatStep[] = [];
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = choice.delta ?? {};
      for (const text of [delta.content, delta.refusal]) {
        if (typeof text === "string" && text !== "") {
          this.produced += text;
          steps.push({ kind: "text", text });
        }
      }
      for (const call of delta.tool_calls ?? []) steps.push(...this.readToolDelta(call));
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return steps;
  }

  /** At the end of the stream: start any call whose name never came, so its arguments are not lost. */
  flush(): ChatStep[] {
    const steps: ChatStep[] = [];
    for (const [index, tool] of this.tools) {
      if (!tool.started) steps.push(...this.start(index, tool, ""));
    }
    return steps;
  }

  private readToolDelta(call: NonNullable<NonNullable<ChatChunk["choices"][number]["delta"]["tool_calls"]>>[number]): ChatStep[] {
    const index = this.indexOf(call);
    let tool = this.tools.get(index);
    if (!tool) {
      tool = { started: false, held: "" };
      this.tools.set(index, tool);
    }
    this.lastToolIndex = index;
    this.madeToolCalls = true;
    if (call.id) tool.id ??= call.id;
    const name = call.function?.name;
    if (typeof name === "string" && name !== "") tool.name ??= name;
    const args = typeof call.function?.arguments === "string" ? call.function.arguments : "";
    this.produced += (name ?? "") + args;
    if (tool.started) return args === "" ? [] : [{ kind: "tool_args", index, args }];
    tool.held += args;
    return tool.name === undefined ? [] : this.start(index, tool, tool.name);
  }

  private start(index: number, tool: ToolState, name: string): ChatStep[] {
    tool.started = true;
    const steps: ChatStep[] = [{ kind: "tool_start", index, id: tool.id ?? this.fallbackToolId(index), name }];
    if (tool.held !== "") steps.push({ kind: "tool_args", index, args: tool.held });
    tool.held = "";
    return steps;
  }

  private indexOf(call: { index?: number; id?: string }): number {
    if (typeof call.index === "number") return call.index;
    if (call.id) {
      for (const [index, tool] of this.tools) if (tool.id === call.id) return index;
      return this.tools.size;
    }
    return Math.max(0, this.lastToolIndex);
  }
}
