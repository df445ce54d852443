/**
 * Aggregation: the verdict is the choice with the most votes (a plurality, not a majority);
 * several choices sharing the most votes is a tie; no vote at all is undecided. Abstentions and
 * failed jurors count for nothing, so they can neither break nor make a tie.
 */
import { TIE, UNDECIDED } from "./limits.ts";

export interface Tally {
  /** Every offered label, with its votes (0 included). */
  choices: Record<string, number>;
  abstained: number;
  failed: number;
}

export interface Counted {
  status: "voted" | "abstained" | "failed";
  choice: string | null;
}

export function tallyVotes(labels: readonly string[], votes: readonly Counted[]): { tally: Tally; verdict: string } {
  const choices: Record<string, number> = Object.fromEntries(labels.map((l) => [l, 0]));
  let abstained = 0;
  let failed = 0;
  for (const v of votes) {
    if (v.status === "voted" && v.choice !== null) choices[v.choice] = (choices[v.choice] ?? 0) + 1;
    else if (v.status === "failed") failed++;
    else abstained++;
  }
  const most = Math.max(0, ...Object.values(choices));
  const leaders = labels.filter((l) => choices[l] === most);
  const verdict = most === 0 ? UNDECIDED : leaders.length > 1 ? TIE : leaders[0]!;
  return { tally: { choices, abstained, failed }, verdict };
}
