/** The judge area's svc.toml section (judge.*; docs/judge.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const JudgeSection = T.Object(
  {
    /**
     * What a verdict costs on top of its jurors' calls. 0 (the default) still settles through the
     * meter, so every verdict gets its own signed receipt of the fingerprints it states.
     */
    verdict_price_micro_usd: MicroUsd(),
    /** max_tokens of each juror's call: a vote is a short JSON object, and the cap bounds what a juror can cost. */
    juror_max_tokens: T.Integer({ minimum: 64, maximum: 8192 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    judge: Static<typeof JudgeSection>;
  }
}

export const judgeConfig: ConfigPart = {
  sections: { judge: { schema: JudgeSection, default: { verdict_price_micro_usd: 0, juror_max_tokens: 1024 } } },
  env: [{ name: "SVC_JUDGE_VERDICT_PRICE_MICRO_USD", path: "judge.verdict_price_micro_usd", type: "integer" }],
};
