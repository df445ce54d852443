/**
 * Output guardrails on the upstream's own shapes (guardrails/guard.ts decides; this knows where
 * the text is). Working on what the upstream sent, before any translation, means one rewrite per
 * upstream API serves every client API: the translators then see already-guarded text.
 *
 * - A reply: the text of each choice (chat), text block (messages) or output_text part
 *   (responses) goes through guard.output; tool-call arguments are left alone (a schema the
 *   client parses, not prose).
 * - A stream: each text channel (a choice, a content block, an output_text part) has its own
 *   OutputWindow, which holds text back until a match cannot be split by a chunk boundary. A
 *   channel's close (finish_reason, content_block_stop, output_text.done) flushes it first, and
 *   the "done" events of the Responses API that repeat the whole text get the guarded text.
 *   A block rule that matches ends the stream with the client's in-stream error
 *   (guardrail_blocked) before the matched text is sent; the hold is released, nothing billed.
 */
import { ApiError } from "../../core/errors.ts";
import type { Guard, OutputWindow } from "../guardrails/index.ts";
import type { Endpoint } from "./providers/types.ts";
import type { ReceiptEvent, StreamTranslator } from "./streaming.ts";
import type { SseMessage } from "./translate/sse.ts";
import type { StreamFailure } from "./translate/stream-errors.ts";
import type { Json } from "./translate/types.ts";
import type { NormalUsage } from "./translate/usage.ts";

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Every text of an upstream reply passed through `edit`, in place. */
export function guardReplyJson(endpoint: Endpoint, json: Json, edit: (text: string) => string): void {
  if (endpoint === "chat") {
    for (const choice of list(json.choices)) {
      const m = isObject(choice) && isObject(choice.message) ? choice.message : null;
      if (m && typeof m.content === "string") m.content = edit(m.content);
    }
  } else if (endpoint === "messages") {
    for (const block of list(json.content)) if (isObject(block) && block.type === "text" && typeof block.text === "string") block.text = edit(block.text);
  } else if (endpoint === "responses") {
    for (const item of list(json.output)) {
      for (const part of isObject(item) ? list(item.content) : []) if (isObject(part) && part.type === "output_text" && typeof part.text === "string") part.text = edit(part.text);
    }
  }
}

const BLOCKED = "guardrail_blocked";

/** A StreamTranslator that guards the upstream's text before `inner` translates it. */
export class GuardedStream implements StreamTranslator {
  private readonly windows = new Map<string, OutputWindow>();
  /** Responses: the guarded text sent per output_text part, for the events that repeat it. */
  private readonly sent = new Map<string, string>();
  private blocked: StreamFailure | null = null;

  constructor(
    private readonly inner: StreamTranslator,
    private readonly guard: Guard,
    private readonly endpoint: Endpoint,
  ) {}

  get finished(): boolean {
    return this.blocked === null && this.inner.finished;
  }

  get failure(): StreamFailure | null {
    return this.blocked ?? this.inner.failure;
  }

  push(message: SseMessage): string {
    let rewritten: SseMessage[];
    try {
      rewritten = this.rewrite(message);
    } catch (err) {
      if (!(err instanceof ApiError) || err.type !== BLOCKED) throw err;
      this.blocked = { type: BLOCKED, message: err.message };
      return this.inner.fail(this.blocked);
    }
    let out = "";
    for (const m of rewritten) out += this.inner.push(m);
    return out;
  }

  end(): string | null {
    return this.inner.end();
  }

  fail(f: StreamFailure): string {
    return this.inner.fail(f);
  }

  usage(): NormalUsage {
    return this.inner.usage();
  }

  producedText(): string {
    return this.inner.producedText();
  }

  trailer(receipt: ReceiptEvent): string {
    return this.inner.trailer(receipt);
  }

  private window(key: string): OutputWindow {
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = this.guard.outputWindow()));
    return w;
  }

  private flush(key: string): string {
    const w = this.windows.get(key);
    if (!w) return "";
    this.windows.delete(key);
    return w.flush();
  }

  private rewrite(message: SseMessage): SseMessage[] {
    if (this.endpoint === "chat") return this.chat(message);
    if (this.endpoint === "messages") return this.messages(message);
    if (this.endpoint === "responses") return this.responses(message);
    return [message];
  }

  private parse(message: SseMessage): Json | null {
    try {
      const v: unknown = JSON.parse(message.data);
      return isObject(v) ? v : null;
    } catch {
      return null; // not ours to judge: the inner translator reports a broken frame
    }
  }

  private chat(message: SseMessage): SseMessage[] {
    const data = message.data.trim() === "[DONE]" ? null : this.parse(message);
    if (!data) return [message];
    let changed = false;
    for (const choice of list(data.choices)) {
      if (!isObject(choice)) continue;
      const key = String(choice.index ?? 0);
      const delta = isObject(choice.delta) ? choice.delta : null;
      if (delta && typeof delta.content === "string") {
        delta.content = this.window(key).push(delta.content);
        changed = true;
      }
      if (choice.finish_reason != null) {
        const rest = this.flush(key);
        if (rest) {
          if (delta) delta.content = (typeof delta.content === "string" ? delta.content : "") + rest;
          else choice.delta = { content: rest };
          changed = true;
        }
      }
    }
    return [changed ? { ...message, data: JSON.stringify(data) } : message];
  }

  private messages(message: SseMessage): SseMessage[] {
    if (message.event !== "content_block_delta" && message.event !== "content_block_stop") return [message];
    const data = this.parse(message);
    if (!data) return [message];
    const key = String(data.index ?? 0);
    if (message.event === "content_block_delta") {
      const delta = isObject(data.delta) ? data.delta : null;
      if (!delta || delta.type !== "text_delta" || typeof delta.text !== "string") return [message];
      delta.text = this.window(key).push(delta.text);
      return [{ ...message, data: JSON.stringify(data) }];
    }
    const rest = this.flush(key);
    if (!rest) return [message];
    const synthetic = { type: "content_block_delta", index: data.index ?? 0, delta: { type: "text_delta", text: rest } };
    return [{ event: "content_block_delta", data: JSON.stringify(synthetic) }, message];
  }

  private responses(message: SseMessage): SseMessage[] {
    const type = message.event;
    if (!type?.startsWith("response.")) return [message];
    const data = this.parse(message);
    if (!data) return [message];
    const partKey = (itemId: unknown, index: unknown) => `${String(itemId)}:${String(index ?? 0)}`;
    const withText = (key: string, text: string) => this.sent.set(key, (this.sent.get(key) ?? "") + text);
    const restore = (item: Json) => {
      for (const [i, part] of list(item.content).entries()) {
        const text = this.sent.get(partKey(item.id, i));
        if (isObject(part) && part.type === "output_text" && text !== undefined) part.text = text;
      }
    };
    const out = (d: Json): SseMessage => ({ ...message, data: JSON.stringify(d) });
    switch (type) {
      case "response.output_text.delta": {
        const key = partKey(data.item_id, data.content_index);
        const text = this.window(key).push(typeof data.delta === "string" ? data.delta : "");
        withText(key, text);
        return [out({ ...data, delta: text })];
      }
      case "response.output_text.done": {
        const key = partKey(data.item_id, data.content_index);
        const rest = this.flush(key);
        withText(key, rest);
        const done = out({ ...data, text: this.sent.get(key) ?? "" });
        if (!rest) return [done];
        const delta = { type: "response.output_text.delta", item_id: data.item_id, output_index: data.output_index, content_index: data.content_index, delta: rest, sequence_number: data.sequence_number };
        return [{ event: "response.output_text.delta", data: JSON.stringify(delta) }, done];
      }
      case "response.content_part.done": {
        const text = this.sent.get(partKey(data.item_id, data.content_index));
        if (isObject(data.part) && data.part.type === "output_text" && text !== undefined) data.part.text = text;
        return [out(data)];
      }
      case "response.output_item.done":
        if (isObject(data.item)) restore(data.item);
        return [out(data)];
      case "response.completed":
      case "response.incomplete":
        for (const item of isObject(data.response) ? list(data.response.output) : []) if (isObject(item)) restore(item);
        return [out(data)];
      default:
        return [message];
    }
  }
}
