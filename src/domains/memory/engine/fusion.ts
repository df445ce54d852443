/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each list adds 1 / (K + rank) for
 * every item it ranks, rank counted from 1. It needs no score calibration between lists — a
 * cosine and a bm25 value are not on one scale — and K = 60 is the value from the paper, which
 * keeps one list's top item from drowning items that both lists rank well.
 */
export const RRF_K = 60;

export interface Fused<T> {
  id: T;
  score: number;
  /** 1-based rank in each input list, null where the list did not have the item. */
  ranks: (number | null)[];
}

/** Fuses ranked lists of ids (best first); ties keep the order of first appearance. */
export function reciprocalRankFusion<T>(lists: readonly (readonly T[])[], k: number = RRF_K): Fused<T>[] {
  const fused = new Map<T, Fused<T>>();
  lists.forEach((list, which) => {
    list.forEach((id, index) => {
      let entry = fused.get(id);
      if (!entry) fused.set(id, (entry = { id, score: 0, ranks: lists.map(() => null) }));
      if (entry.ranks[which] !== null) return; // a list naming an id twice counts it once, at its best rank
      entry.ranks[which] = index + 1;
      entry.score += 1 / (k + index + 1);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
