/** TypeBox model of GET /v1/explorer: aggregate counts and two short public lists. Closed objects. */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { RECENT_LIMIT } from "./service.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Count = Int({ minimum: 0 });

export const ExplorerPage = t.Object(
  {
    counts: t.Object(
      {
        receipts_minted: Count,
        receipts_shared: Count,
        runs: Count,
        roots: Count,
        batches: Count,
        roots_anchored: t.Object({ log: Count, evm: Count }, { ...closed, description: "roots with an anchor in status anchored, per backend" }),
      },
      closed,
    ),
    recent_shared_receipts: t.Array(
      t.Object(
        { id: t.String(), kind: t.String(), status: t.String(), cost_micro_usd: MicroUsd(), created_at: Time, shared_at: Time, url: t.String() },
        closed,
      ),
      { maxItems: RECENT_LIMIT, description: "receipts their owners share, newest share first" },
    ),
    recent_anchors: t.Array(
      t.Object(
        {
          root: t.String({ pattern: "^[0-9a-f]{64}$" }),
          backend: t.Union([t.Literal("log"), t.Literal("evm")]),
          status: t.Union([t.Literal("pending"), t.Literal("submitted"), t.Literal("anchored")]),
          external_id: Nullable(t.String()),
          created_at: Time,
          confirmed_at: Nullable(Time),
          url: t.String(),
        },
        closed,
      ),
      { maxItems: RECENT_LIMIT, description: "newest first" },
    ),
    passports: t.Array(t.Unknown(), { maxItems: 0, description: "always empty until agent passports exist (spec §4.1)" }),
    note: t.String(),
  },
  closed,
);
