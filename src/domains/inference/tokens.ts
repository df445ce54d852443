/**
 * Token counting for reservations, with gpt-tokenizer's o200k_base encoding (the GPT-4o/GPT-5
 * family's): pure JavaScript, its tables bundled in the package, so it needs no network and
 * works inside the compiled binary. Other families (Claude, Llama…) tokenize differently, by
 * up to a few tens of percent; pricing.ts adds a margin, and settle bills the upstream's own
 * count in any case, so a count here only sizes the hold.
 *
 * The encoder's tables take ~300 ms to load, so they load on first use (a lazy require, which
 * the bundler keeps lazy in the binary) rather than slowing every CLI command's start.
 * warmTokenizer() loads them up front, e.g. when the server starts.
 */
import type * as O200k from "gpt-tokenizer/encoding/o200k_base";

let encoder: typeof O200k | null = null;

function load(): typeof O200k {
  return (encoder ??= require("gpt-tokenizer/encoding/o200k_base") as typeof O200k);
}

/** Text like "<|endoftext|>" in a prompt is counted as the plain text it is, never refused or read as a control token. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text ? load().countTokens(text, PLAIN_TEXT) : 0;
}

/** Counts one text of a prompt: countTokens, or a cache of it (PromptTextCounts.counter). */
export type TextCounter = (text: string) => number;

/**
 * Exact counts of the prompt texts (messages, system prompts, tool schemas) an account sent
 * before. An agent resends its whole conversation on every turn, so all but its newest messages
 * were counted on an earlier call: tokenizing a 10,000-token history costs ~2 ms of the event
 * loop (~12 ms for 100,000), finding its count here ~20 µs. Every call's reservation waits for
 * the count before the upstream is called, so this is latency on every long-context call.
 *
 * Kept per account: a count found is quicker than one made, and a cache shared between accounts
 * would let one time whether another had sent a given text. Bounded by the characters it holds,
 * the least recently used dropped first; texts shorter than MIN_CHARS are counted each time
 * (cheaper than the lookup's bookkeeping).
 */
export class PromptTextCounts {
  static readonly MIN_CHARS = 64;
  /** By account and the text's hash; the text itself is kept to confirm a match, so a count is never another text's. */
  private readonly counts = new Map<string, { text: string; tokens: number }>();
  private chars = 0;

  /** `tokenize`: the count a text not found gets (the tokenizer; a test counts its calls). */
  constructor(
    private readonly maxChars: number,
    private readonly tokenize: TextCounter = countTokens,
  ) {}

  /** The counter for one account's texts. */
  counter(accountId: string): TextCounter {
    return (text) => this.count(accountId, text);
  }

  /** What the cache holds, for tests and diagnostics. */
  get size(): { texts: number; chars: number } {
    return { texts: this.counts.size, chars: this.chars };
  }

  private count(accountId: string, text: string): number {
    if (text.length < PromptTextCounts.MIN_CHARS) return this.tokenize(text);
    // A native hash of the text, not the text in the key: a key built from the text would copy it on every call.
    const key = `${accountId} ${Bun.hash(text).toString(36)}`;
    const found = this.counts.get(key);
    if (found !== undefined && found.text === text) {
      // Most recently used last: Map keeps insertion order, and eviction starts at the front.
      this.counts.delete(key);
      this.counts.set(key, found);
      return found.tokens;
    }
    const tokens = this.tokenize(text);
    // One text may take at most a quarter of the cache, so a huge prompt cannot flush it.
    if (text.length > this.maxChars / 4) return tokens;
    if (found !== undefined) this.forget(key, found.text);
    this.counts.set(key, { text, tokens });
    this.chars += text.length;
    for (const [old, entry] of this.counts) {
      if (this.chars <= this.maxChars) break;
      this.forget(old, entry.text);
    }
    return tokens;
  }

  private forget(key: string, text: string): void {
    this.counts.delete(key);
    this.chars -= text.length;
  }
}

/** The serving process's prompt counts: at most 8 million characters (8–16 MB). */
export const promptTextCounts = new PromptTextCounts(8_000_000);

export function warmTokenizer(): void {
  load();
}
