/**
 * An OpenAI Chat stream in, OpenAI Responses streaming events out — what a Responses client
 * receives from a Chat Completions upstream:
 *
 *   response.created, response.in_progress                      (status in_progress, no output)
 *   for a text answer:  response.output_item.added (message) → response.content_part.added →
 *                       response.output_text.delta… → response.output_text.done →
 *                       response.content_part.done → response.output_item.done
 *   per tool call:      response.output_item.added (function_call) →
 *                       response.function_call_arguments.delta… →
 *                       response.function_call_arguments.done → response.output_item.done
 *   response.completed (or response.incomplete when cut by max_output_tokens / a filter),
 *   carrying the whole Response with usage.
 *
 * Every event has a sequence_number rising by one from 0; items are opened and closed one at a
 * time in output order, with the same ids the non-streamed translation gives (responses.ts).
 * A failure yields an `error` event (the openai SDK raises it) followed by response.failed.
 */
import { ChatChunkReader, type ChatStep } from "./chat-chunk-reader.ts";
import {
  fallbackCallId,
  functionCallItem,
  messageItem,
  outputItemId,
  responseObject,
  type ResponsesReplyOptions,
} from "./responses.ts";
import { chatFinishToResponses } from "./stop-reasons.ts";
import { failureOf, type StreamFailure } from "./stream-errors.ts";
import type { ChatChunk, ChatStreamError, ResponsesObject, ResponsesOutputItem, ResponsesStreamEvent } from "./types.ts";
import { chatUsageToResponses, normalizeUsage, type NormalUsage } from "./usage.ts";

export interface ChatToResponsesStreamOptions extends ResponsesReplyOptions {
  /** The model name the client asked for. */
  model: string;
  /** Unix seconds now, for completed_at; defaults to createdAt. */
  now?: () => number;
}

export class ChatToResponsesStream {
  private readonly reader: ChatChunkReader;
  private seq = 0;
  private started = false;
  private finished = false;
  private readonly output: ResponsesOutputItem[] = [];
  private open: number | null = null;
  /** Chat tool-call index → output index of its function_call item. */
  private readonly toolItems = new Map<number, number>();

  constructor(private readonly opts: ChatToResponsesStreamOptions) {
    this.reader = new ChatChunkReader((i) => fallbackCallId(opts.id, i));
  }

  get done(): boolean {
    return this.finished;
  }

  push(chunk: ChatChunk | ChatStreamError): ResponsesStreamEvent[] {
    if (this.finished) return [];
    if ("error" in chunk && chunk.error) return this.fail(failureOf(chunk));
    const events = this.start();
    for (const step of this.reader.read(chunk as ChatChunk)) events.push(...this.step(step));
    return events;
  }

  end(): ResponsesStreamEvent[] {
    if (this.finished) return [];
    const events = this.start();
    for (const step of this.reader.flush()) events.push(...this.step(step));
    const outcome = chatFinishToResponses(this.reader.finishReason);
    if (this.output.length === 0) events.push(...this.openMessage()); // an empty answer is still one message
    events.push(...this.close(outcome.status === "incomplete" ? "incomplete" : "completed"));
    this.finished = true;
    const response = this.response(outcome.status, outcome.incomplete_details);
    events.push(this.event(outcome.status === "incomplete" ? "response.incomplete" : "response.completed", { response }));
    return events;
  }

  /** A failure mid-stream (upstream error, timeout): an error event, then response.failed. */
  fail(f: StreamFailure): ResponsesStreamEvent[] {
    if (this.finished) return [];
    const events = this.start();
    this.finished = true;
    events.push(this.event("error", { code: f.type, message: f.message, param: null }));
    const response: ResponsesObject = { ...this.response("failed", null), error: { code: f.type, message: f.message } };
    events.push(this.event("response.failed", { response }));
    return events;
  }

  usage(): NormalUsage {
    return normalizeUsage(this.reader.usage) ?? { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  }

  producedText(): string {
    return this.reader.produced;
  }

  private start(): ResponsesStreamEvent[] {
    if (this.started) return [];
    this.started = true;
    const response = this.response("in_progress", null);
    return [this.event("response.created", { response }), this.event("response.in_progress", { response })];
  }

  private step(step: ChatStep): ResponsesStreamEvent[] {
    if (step.kind === "text") {
      const events = this.open !== null && this.output[this.open]!.type === "message" ? [] : this.openMessage();
      const index = this.open!;
      const item = this.output[index]!;
      if (item.type === "message") item.content[0]!.text += step.text;
      events.push(this.event("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: step.text, logprobs: [] }));
      return events;
    }
    if (step.kind === "tool_start") {
      const events = this.close("completed");
      const index = this.output.length;
      const item = functionCallItem(outputItemId(this.opts.id, "function_call", index), step.id, step.name, "", "in_progress");
      this.output.push(item);
      this.open = index;
      this.toolItems.set(step.index, index);
      events.push(this.event("response.output_item.added", { output_index: index, item: { ...item } }));
      return events;
    }
    const index = this.toolItems.get(step.index);
    const item = index === undefined ? undefined : this.output[index];
    if (index === undefined || item?.type !== "function_call") return [];
    item.arguments += step.args;
    return [this.event("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: step.args })];
  }

  private openMessage(): ResponsesStreamEvent[] {
    const events = this.close("completed");
    const index = this.output.length;
    const item = messageItem(outputItemId(this.opts.id, "message", index), "", "in_progress");
    this.output.push(item);
    this.open = index;
    events.push(this.event("response.output_item.added", { output_index: index, item: { ...item, content: [] } }));
    events.push(this.event("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { ...item.content[0]! } }));
    return events;
  }

  /** Closes the open item with its done events; `status` is what the finished item reports. */
  private close(status: "completed" | "incomplete"): ResponsesStreamEvent[] {
    if (this.open === null) return [];
    const index = this.open;
    this.open = null;
    const item = this.output[index]!;
    item.status = status;
    const events: ResponsesStreamEvent[] = [];
    if (item.type === "message") {
      const part = item.content[0]!;
      events.push(this.event("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] }));
      events.push(this.event("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part: { ...part } }));
    } else {
      events.push(this.event("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments }));
    }
    events.push(this.event("response.output_item.done", { output_index: index, item: structuredClone(item) }));
    return events;
  }

  private response(status: ResponsesObject["status"], incomplete: ResponsesObject["incomplete_details"]): ResponsesObject {
    const ended = status !== "in_progress";
    return responseObject(this.opts, {
      status,
      incomplete_details: incomplete,
      output: ended ? structuredClone(this.output) : [],
      usage: ended && status !== "failed" ? chatUsageToResponses(this.reader.usage) : null,
      model: this.opts.model,
      completedAt: this.opts.now?.() ?? this.opts.completedAt ?? this.opts.createdAt,
    });
  }

  private event(type: string, body: Record<string, unknown>): ResponsesStreamEvent {
    return { type, sequence_number: this.seq++, ...body };
  }
}
