/**
 * Splits a document into chunks of about `chunkSize` tokens, each starting `overlap` tokens
 * before the previous one ended, so a sentence cut at a boundary is whole in one of the two.
 *
 * Tokens are counted with gpt-tokenizer's o200k_base encoding (as inference/tokens.ts does; its
 * tables load lazily on first use). Chunks break between words, never inside one: the text is cut
 * into pieces of a word and the whitespace before it, each piece is counted, and a chunk is a run
 * of whole pieces, so every chunk is an exact substring of the document (no character split
 * across a token boundary). o200k pre-tokenizes on about the same boundaries, so the sum of the
 * pieces' counts, which is what a chunk's `tokens` reports, is within a token or two of counting
 * the chunk whole. A piece longer than half a chunk
 * (a URL, base64, a language written without spaces) is cut by characters first.
 */
import type * as O200k from "gpt-tokenizer/encoding/o200k_base";

let encoder: typeof O200k | null = null;
const load = (): typeof O200k => (encoder ??= require("gpt-tokenizer/encoding/o200k_base") as typeof O200k);

/** Text like "<|endoftext|>" in a document is plain text, never a control token. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export const countChunkTokens = (text: string): number => (text ? load().countTokens(text, PLAIN_TEXT) : 0);

export interface Chunk {
  /** 0-based position in the document. */
  index: number;
  text: string;
  tokens: number;
}

export interface ChunkOptions {
  chunkSize: number;
  overlap: number;
}

export const CHUNK_SIZE_RANGE = { min: 16, max: 8192 } as const;

/** Throws a RangeError naming the setting that is out of range. */
export function checkChunkOptions({ chunkSize, overlap }: ChunkOptions): void {
  if (!Number.isInteger(chunkSize) || chunkSize < CHUNK_SIZE_RANGE.min || chunkSize > CHUNK_SIZE_RANGE.max) {
    throw new RangeError(`chunk_size must be an integer from ${CHUNK_SIZE_RANGE.min} to ${CHUNK_SIZE_RANGE.max}`);
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > chunkSize / 2) {
    throw new RangeError("chunk_overlap must be an integer from 0 to half of chunk_size");
  }
}

interface Piece {
  text: string;
  tokens: number;
}

const PIECES = /\s*\S+|\s+/g;

/**
 * Counts of recent pieces. Words repeat (a document says "the" hundreds of times), and counting
 * every piece through the encoder was most of the chunker's time. Cleared when full, so bounded.
 */
const pieceCounts = new Map<string, number>();
const PIECE_CACHE_LIMIT = 50_000;

function countPiece(piece: string): number {
  let n = pieceCounts.get(piece);
  if (n === undefined) {
    n = countChunkTokens(piece);
    if (pieceCounts.size >= PIECE_CACHE_LIMIT) pieceCounts.clear();
    if (piece.length <= 64) pieceCounts.set(piece, n);
  }
  return n;
}

/** Cuts a piece too long for a chunk into runs of about `target` tokens, by code points (never inside a surrogate pair). */
function splitLongPiece(text: string, tokens: number, target: number): Piece[] {
  const points = Array.from(text);
  const per = Math.max(1, Math.floor((points.length * target) / tokens));
  const out: Piece[] = [];
  for (let i = 0; i < points.length; i += per) {
    const part = points.slice(i, i + per).join("");
    out.push({ text: part, tokens: countChunkTokens(part) });
  }
  return out;
}

function pieces(text: string, chunkSize: number): Piece[] {
  const out: Piece[] = [];
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    const tokens = countPiece(piece);
    if (tokens > chunkSize / 2) out.push(...splitLongPiece(piece, tokens, Math.max(1, Math.floor(chunkSize / 4))));
    else out.push({ text: piece, tokens });
  }
  return out;
}

/** The chunks of `text`; none for text that is empty or only whitespace. */
export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  checkChunkOptions(options);
  const { chunkSize, overlap } = options;
  if (!text.trim()) return [];
  const all = pieces(text, chunkSize);
  const chunks: Chunk[] = [];
  let start = 0;
  // Every pass ends at least one piece further than the last (end > start, start moves forward),
  // so the loop runs at most once per piece.
  while (start < all.length) {
    let end = start;
    let tokens = 0;
    while (end < all.length && (end === start || tokens + all[end]!.tokens <= chunkSize)) tokens += all[end++]!.tokens;
    const body = all.slice(start, end).map((p) => p.text).join("");
    // Leading whitespace carried by the first piece is not part of what the chunk says. The
    // chunk's count is the sum of its pieces' (within a token or two of counting it whole).
    const trimmed = body.trimStart();
    if (trimmed.trim()) chunks.push({ index: chunks.length, text: trimmed, tokens });
    if (end >= all.length) break;
    // Step back over whole pieces worth at most `overlap` tokens, but always move forward.
    let next = end;
    let back = 0;
    while (next - 1 > start && back + all[next - 1]!.tokens <= overlap) back += all[--next]!.tokens;
    start = next;
  }
  return chunks;
}
