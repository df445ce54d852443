/**
 * An OpenAI Chat stream in, the Anthropic Messages event sequence out — what an Anthropic
 * client streaming from an OpenAI-compatible upstream receives:
 *
 *   message_start
 *   (content_block_start, content_block_delta…, content_block_stop)*   one block at a time
 *   message_delta {stop_reason, usage}
 *   message_stop
 *
 * Text becomes a text block (text_delta); each tool call becomes a tool_use block whose
 * arguments stream as input_json_delta. Anthropic reports input tokens in message_start, but an
 * OpenAI stream only reports usage at its end: message_start carries the caller's estimate (the
 * count it reserved against, or 0) and message_delta carries the upstream's real counts, which
 * the Anthropic SDK takes over message_start's (it overwrites input and cache counts when present).
 *
 * Feed every upstream chunk to push(), then call end() when the upstream stream finishes
 * ([DONE] or close). An upstream error chunk yields an Anthropic error event and ends the stream.
 */
import { ChatChunkReader, type ChatStep } from "./chat-chunk-reader.ts";
import { toolUseId } from "./messages-to-chat.ts";
import { chatFinishToAnthropic } from "./stop-reasons.ts";
import { anthropicStreamError, failureOf, type StreamFailure } from "./stream-errors.ts";
import type { AnthStreamEvent, ChatChunk, ChatStreamError } from "./types.ts";
import { chatUsageToAnthropic, normalizeUsage, type NormalUsage } from "./usage.ts";

export interface ChatToAnthropicStreamOptions {
  /** The message id the client sees (msg_…). */
  id: string;
  /** The model name the client asked for. */
  model: string;
  /** Prompt tokens as counted before the call, shown in message_start until the real count arrives. */
  inputTokens?: number;
}

type OpenBlock = { kind: "text" | "tool"; index: number } | null;

export class ChatToAnthropicStream {
  private readonly reader: ChatChunkReader;
  private started = false;
  private finished = false;
  private nextBlock = 0;
  private open: OpenBlock = null;
  /** Chat tool-call index → Anthropic content block index. */
  private readonly toolBlocks = new Map<number, number>();

  constructor(private readonly opts: ChatToAnthropicStreamOptions) {
    this.reader = new ChatChunkReader((i) => toolUseId(opts.id, i));
  }

  /** True once message_stop (or an error event) has been produced. */
  get done(): boolean {
    return this.finished;
  }

  push(chunk: ChatChunk | ChatStreamError): AnthStreamEvent[] {
    if (this.finished) return [];
    if ("error" in chunk && chunk.error) return this.fail(failureOf(chunk));
    const events = this.start();
    for (const step of this.reader.read(chunk as ChatChunk)) events.push(...this.step(step));
    return events;
  }

  end(): AnthStreamEvent[] {
    if (this.finished) return [];
    const events = this.start();
    for (const step of this.reader.flush()) events.push(...this.step(step));
    events.push(...this.close());
    const usage = chatUsageToAnthropic(this.reader.usage);
    events.push({
      type: "message_delta",
      delta: { stop_reason: chatFinishToAnthropic(this.reader.finishReason, this.reader.madeToolCalls), stop_sequence: null },
      usage,
    });
    events.push({ type: "message_stop" });
    this.finished = true;
    return events;
  }

  /** A failure mid-stream (upstream error, timeout, cut): one Anthropic error event, then nothing. */
  fail(f: StreamFailure): AnthStreamEvent[] {
    if (this.finished) return [];
    this.finished = true;
    return [anthropicStreamError(f)];
  }

  /** The upstream's usage so far (zeros until it reports), in the normal form. */
  usage(): NormalUsage {
    return normalizeUsage(this.reader.usage) ?? { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  }

  /** Text and tool arguments produced so far: what to count when a stream is cut before its usage. */
  producedText(): string {
    return this.reader.produced;
  }

  private start(): AnthStreamEvent[] {
    if (this.started) return [];
    this.started = true;
    return [
      {
        type: "message_start",
        message: {
          id: this.opts.id,
          type: "message",
          role: "assistant",
          model: this.opts.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: this.opts.inputTokens ?? 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
    ];
  }

  private step(step: ChatStep): AnthStreamEvent[] {
    if (step.kind === "text") {
      const events = this.open?.kind === "text" ? [] : this.openBlock("text", { type: "text", text: "" });
      events.push({ type: "content_block_delta", index: this.open!.index, delta: { type: "text_delta", text: step.text } });
      return events;
    }
    if (step.kind === "tool_start") {
      const events = this.openBlock("tool", { type: "tool_use", id: step.id, name: step.name, input: {} });
      this.toolBlocks.set(step.index, this.open!.index);
      return events;
    }
    // Arguments for an earlier call that arrive after another block opened (no known server
    // interleaves, but the index says where they belong) still go to that call's block.
    const index = this.toolBlocks.get(step.index);
    if (index === undefined) return [];
    return [{ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: step.args } }];
  }

  private openBlock(kind: "text" | "tool", block: Extract<AnthStreamEvent, { type: "content_block_start" }>["content_block"]): AnthStreamEvent[] {
    const events = this.close();
    this.open = { kind, index: this.nextBlock++ };
    events.push({ type: "content_block_start", index: this.open.index, content_block: block });
    return events;
  }

  private close(): AnthStreamEvent[] {
    if (!this.open) return [];
    const index = this.open.index;
    this.open = null;
    return [{ type: "content_block_stop", index }];
  }
}
