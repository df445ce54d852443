/**
 * A deterministic local embedding stand-in for tests and the bench (no provider call, no model):
 * a random projection of the text's bag of words. Each word maps to a fixed pseudo-random
 * vector seeded by its hash; a text is the sum of its words' vectors, weighted 1 + ln(count),
 * then L2-normalised. Texts that share words get similar vectors, which is the property the
 * engine needs to be tested with; it knows nothing of meaning.
 */
const WORDS = /[\p{L}\p{N}]+/gu;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class HashedEmbedder {
  private readonly cache = new Map<string, Float32Array>();

  constructor(readonly dimension: number) {}

  private wordVector(word: string): Float32Array {
    let v = this.cache.get(word);
    if (v) return v;
    v = new Float32Array(this.dimension);
    let x = fnv1a(word) || 1;
    for (let i = 0; i < this.dimension; i++) {
      // xorshift32: uniform in [-0.5, 0.5)
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      v[i] = (x >>> 0) / 0x100000000 - 0.5;
    }
    if (this.cache.size < 200_000) this.cache.set(word, v);
    return v;
  }

  embed(text: string): Float32Array {
    const counts = new Map<string, number>();
    for (const m of text.toLowerCase().matchAll(WORDS)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    const out = new Float32Array(this.dimension);
    for (const [word, count] of counts) {
      const w = 1 + Math.log(count);
      const v = this.wordVector(word);
      for (let i = 0; i < this.dimension; i++) out[i]! += w * v[i]!;
    }
    let norm = 0;
    for (let i = 0; i < this.dimension; i++) norm += out[i]! * out[i]!;
    norm = Math.sqrt(norm);
    // A text with no words gets a fixed unit vector rather than zeros (which have no direction).
    if (norm === 0) out[0] = 1;
    else for (let i = 0; i < this.dimension; i++) out[i]! /= norm;
    return out;
  }

  /** The shape upsertDocument takes. */
  readonly embedMany = (texts: string[]): Float32Array[] => texts.map((t) => this.embed(t));
}
