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
 * would let one time whether another had sent a given text. Bounded by the characters it holds:
 * the oldest texts not found since they were last passed go first (a second-chance queue);
 * texts shorter than MIN_CHARS are counted each time (cheaper than the lookup's bookkeeping).
 */
interface Counted {
  accountId: string;
  key: number;
  text: string;
  tokens: number;
  /** Found since it was last passed by the eviction hand (second chance). */
  used: boolean;
}

export class PromptTextCounts {
  static readonly MIN_CHARS = 64;
  /**
   * Per account, by the text's CRC-32; the text itself is kept to confirm a match, so a count is
   * never another text's (two texts of one account with one checksum take turns).
   */
  private readonly byAccount = new Map<string, Map<number, Counted>>();
  /** Every entry in the order it was stored: the eviction hand starts at `head`. */
  private queue: Counted[] = [];
  private head = 0;
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
    let texts = 0;
    for (const entries of this.byAccount.values()) texts += entries.size;
    return { texts, chars: this.chars };
  }

  private count(accountId: string, text: string): number {
    if (text.length < PromptTextCounts.MIN_CHARS) return this.tokenize(text);
    // A native checksum of the text, not the text, as the key: hashing a long prompt's every
    // message on every call is the lookup's main cost, and a number keys a Map cheaply.
    const key = Bun.hash.crc32(text);
    let entries = this.byAccount.get(accountId);
    const found = entries?.get(key);
    if (found !== undefined && found.text === text) {
      // Marked, not moved: a hit costs no reordering; eviction gives a marked entry a second chance.
      found.used = true;
      return found.tokens;
    }
    const tokens = this.tokenize(text);
    // One text may take at most a quarter of the cache, so a huge prompt cannot flush it.
    if (text.length > this.maxChars / 4) return tokens;
    if (!entries) this.byAccount.set(accountId, (entries = new Map()));
    if (found !== undefined) this.chars -= found.text.length; // the same checksum, another text: replaced (its queue slot is skipped when reached)
    const entry: Counted = { accountId, key, text, tokens, used: false };
    entries.set(key, entry);
    this.queue.push(entry);
    this.chars += text.length;
    this.evict();
    return tokens;
  }

  /** Drops the oldest entries not found since the hand last passed them, until the characters fit. */
  private evict(): void {
    while (this.chars > this.maxChars && this.head < this.queue.length) {
      const entry = this.queue[this.head++]!;
      const entries = this.byAccount.get(entry.accountId);
      if (entries?.get(entry.key) !== entry) continue; // replaced since
      if (entry.used) {
        entry.used = false;
        this.queue.push(entry);
        continue;
      }
      entries.delete(entry.key);
      if (!entries.size) this.byAccount.delete(entry.accountId);
      this.chars -= entry.text.length;
    }
    // The passed part of the queue is dropped once it is most of it.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

/** The serving process's prompt counts: at most 8 million characters (8–16 MB). */
export const promptTextCounts = new PromptTextCounts(8_000_000);

export function warmTokenizer(): void {
  load();
}
