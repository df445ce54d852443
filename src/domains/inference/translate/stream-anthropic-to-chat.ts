/**
 * An Anthropic Messages event stream in, OpenAI chat.completion.chunk objects out — what an
 * OpenAI client streaming from an Anthropic upstream receives. Every chunk carries the same id,
 * created and model; the first carries role "assistant" (sent with the first content); a tool call's first delta carries its
 * index, id, type and name, later ones only argument fragments; the finish chunk carries
 * finish_reason; and when the client asked for stream_options.include_usage, a last chunk with
 * empty choices carries usage, exactly as OpenAI sends it. The route writes `data: [DONE]`.
 *
 * Anthropic reports input tokens in message_start and the output count in message_delta; both
 * are kept for metering (usage()) whether or not the client asked to see them.
 */
import { stringifyToolInput } from "./content.ts";
import { anthropicStopToChat } from "./stop-reasons.ts";
import { chatStreamError, failureOf, type StreamFailure } from "./stream-errors.ts";
import type { AnthStreamEvent, AnthUsage, ChatChunk, ChatDelta, ChatFinishReason, ChatStreamError } from "./types.ts";
import { anthropicUsageToChat, normalizeUsage, type NormalUsage } from "./usage.ts";

export interface AnthropicToChatStreamOptions {
  /** The chat.completion id the client sees (chatcmpl-…), the same on every chunk. */
  id: string;
  /** Unix seconds, from the caller's clock, the same on every chunk. */
  created: number;
  /** The model name the client asked for. */
  model: string;
  /** The client's stream_options.include_usage: whether to send the final usage chunk. */
  includeUsage: boolean;
}

export class AnthropicToChatStream {
  private started = false;
  private finished = false;
  private finishSent = false;
  private usageSoFar: Partial<AnthUsage> = {};
  private produced = "";
  /** Anthropic content block index → OpenAI tool call index (0, 1, … in order of appearance). */
  private readonly toolIndex = new Map<number, number>();

  constructor(private readonly opts: AnthropicToChatStreamOptions) {}

  /** True once the upstream's message_stop (or an error) has been translated. */
  get done(): boolean {
    return this.finished;
  }

  push(event: AnthStreamEvent): (ChatChunk | ChatStreamError)[] {
    if (this.finished) return [];
    switch (event.type) {
      case "message_start":
        this.addUsage(event.message.usage);
        return [];
      case "content_block_start":
        return this.blockStart(event.index, event.content_block as Record<string, unknown>);
      case "content_block_delta":
        return this.blockDelta(event);
      case "message_delta": {
        this.addUsage(event.usage);
        const reason = anthropicStopToChat(event.delta.stop_reason);
        if (!reason) return [];
        this.finishSent = true;
        return [...this.start(""), this.chunk({}, reason)];
      }
      case "message_stop": {
        this.finished = true;
        const out = this.start("");
        if (!this.finishSent) out.push(this.chunk({}, "stop"));
        if (this.opts.includeUsage) out.push({ ...this.chunk({}, null), choices: [], usage: anthropicUsageToChat(this.usageSoFar) });
        return out;
      }
      case "error":
        return this.fail(failureOf(event));
      default:
        // ping, content_block_stop and event types added later carry nothing a Chat client sees.
        return [];
    }
  }

  /** A failure mid-stream (upstream error, timeout, cut): one Chat error payload, then nothing. */
  fail(f: StreamFailure): ChatStreamError[] {
    if (this.finished) return [];
    this.finished = true;
    return [chatStreamError(f)];
  }

  /** The upstream's usage so far, in the normal form (input from message_start, output from message_delta). */
  usage(): NormalUsage {
    return normalizeUsage({ cache_read_input_tokens: 0, ...this.usageSoFar }) ?? { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  }

  /** Text and tool arguments produced so far: what to count when a stream is cut before its usage. */
  producedText(): string {
    return this.produced;
  }

  /**
   * The role chunk goes out just before the first content, because its `content` differs as
   * OpenAI's does: "" ahead of text, null ahead of tool calls — so an accumulated tool-only
   * reply has content null, exactly like the non-streaming translation.
   */
  private start(content: "" | null): ChatChunk[] {
    if (this.started) return [];
    this.started = true;
    return [this.chunk({ role: "assistant", content }, null)];
  }

  private blockStart(index: number, block: Record<string, unknown>): ChatChunk[] {
    if (block.type === "text" && typeof block.text === "string" && block.text !== "") return [...this.start(""), this.text(block.text)];
    if (block.type !== "tool_use") return []; // thinking blocks have no Chat field
    const n = this.toolIndex.size;
    this.toolIndex.set(index, n);
    const name = String(block.name ?? "");
    this.produced += name;
    const chunks = [...this.start(null), this.chunk({ tool_calls: [{ index: n, id: String(block.id), type: "function", function: { name, arguments: "" } }] }, null)];
    // Anthropic starts tool_use with input {} and streams the JSON; a proxy that sends the whole
    // input up front (and no deltas) must not lose it.
    if (block.input && typeof block.input === "object" && Object.keys(block.input).length > 0) {
      chunks.push(this.args(n, stringifyToolInput(block.input)));
    }
    return chunks;
  }

  private blockDelta(event: Extract<AnthStreamEvent, { type: "content_block_delta" }>): ChatChunk[] {
    const delta = event.delta as Record<string, unknown>;
    if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") return [...this.start(""), this.text(delta.text)];
    if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json !== "") {
      const n = this.toolIndex.get(event.index);
      return n === undefined ? [] : [this.args(n, delta.partial_json)];
    }
    return []; // thinking, signature and citation deltas have no Chat field
  }

  private text(text: string): ChatChunk {
    this.produced += text;
    return this.chunk({ content: text }, null);
  }

  private args(index: number, args: string): ChatChunk {
    this.produced += args;
    return this.chunk({ tool_calls: [{ index, function: { arguments: args } }] }, null);
  }

  private addUsage(usage: Partial<AnthUsage> | undefined): void {
    // Anthropic's counts are running totals: a later value replaces an earlier one.
    for (const [key, value] of Object.entries(usage ?? {})) {
      if (typeof value === "number") (this.usageSoFar as Record<string, number>)[key] = value;
    }
  }

  private chunk(delta: ChatDelta, finish: ChatFinishReason | null): ChatChunk {
    return {
      id: this.opts.id,
      object: "chat.completion.chunk",
      created: this.opts.created,
      model: this.opts.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
  }
}
