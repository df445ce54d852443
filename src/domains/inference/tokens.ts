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

export function warmTokenizer(): void {
  load();
}
