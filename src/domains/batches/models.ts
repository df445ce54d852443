/**
 * TypeBox models of the batch routes: the OpenAI batch object (with svc's cost_micro_usd and
 * error_class) and its list object, the only one of spec §2.1 with has_more.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { BATCH_LIMIT } from "./service.ts";

const closed = { additionalProperties: false } as const;
const Unix = t.Integer({ description: "Unix seconds" });
const MaybeUnix = Nullable(Unix);

export const BatchParams = t.Object({ id: t.String({ description: "batch_… id" }) });

export const CreateBody = t.Object(
  {
    input_file_id: t.String({ minLength: 1, maxLength: 64, description: "a file uploaded with purpose=batch (POST /v1/files)" }),
    endpoint: t.String({ minLength: 1, maxLength: 64, description: "/v1/chat/completions, /v1/embeddings, /v1/messages or /v1/responses; every line's url must be this" }),
    completion_window: t.String({ minLength: 1, maxLength: 16, description: '"24h": a batch still running then ends expired' }),
    metadata: t.Optional(Nullable(t.Record(t.String(), t.Unknown(), { description: "up to 16 string values" }))),
  },
  closed,
);

export const Batch = t.Object(
  {
    id: t.String(),
    object: t.Literal("batch"),
    endpoint: t.String(),
    errors: Nullable(
      t.Object(
        { object: t.Literal("list"), data: t.Array(t.Object({ code: t.String(), message: t.String(), line: t.Null(), param: t.Null() }, closed)) },
        { ...closed, description: "a batch-level failure (its class and why); line failures are in the error file" },
      ),
    ),
    input_file_id: t.String(),
    completion_window: t.String(),
    status: t.Union([
      t.Literal("validating"),
      t.Literal("in_progress"),
      t.Literal("finalizing"),
      t.Literal("completed"),
      t.Literal("failed"),
      t.Literal("expired"),
      t.Literal("cancelling"),
      t.Literal("cancelled"),
    ]),
    output_file_id: Nullable(t.String({ description: "lines that answered 200, once the batch ended" })),
    error_file_id: Nullable(t.String({ description: "lines that failed or never ran, once the batch ended" })),
    created_at: Unix,
    in_progress_at: MaybeUnix,
    expires_at: Unix,
    finalizing_at: MaybeUnix,
    completed_at: MaybeUnix,
    failed_at: MaybeUnix,
    expired_at: MaybeUnix,
    cancelling_at: MaybeUnix,
    cancelled_at: MaybeUnix,
    request_counts: t.Object(
      { total: t.Integer({ minimum: 0 }), completed: t.Integer({ minimum: 0 }), failed: t.Integer({ minimum: 0, description: "lines in the error file: failed, or never ran" }) },
      closed,
    ),
    metadata: Nullable(t.Record(t.String(), t.String())),
    usage: t.Object(
      {
        input_tokens: t.Integer({ minimum: 0 }),
        output_tokens: t.Integer({ minimum: 0 }),
        total_tokens: t.Integer({ minimum: 0 }),
        input_tokens_details: t.Object({ cached_tokens: t.Integer({ minimum: 0 }) }, closed),
        output_tokens_details: t.Object({ reasoning_tokens: t.Integer({ minimum: 0 }) }, closed),
      },
      closed,
    ),
    cost_micro_usd: MicroUsd({ description: "svc: what the batch's lines were billed, the sum of their receipts" }),
    error_class: Nullable(t.String({ description: "svc: why a failed or expired batch ended (batch_failed carries it)" })),
  },
  closed,
);

export const BatchList = t.Object(
  { object: t.Literal("list"), data: t.Array(Batch, { description: `newest first, at most ${BATCH_LIMIT.max}` }), has_more: t.Boolean({ description: "more batches after the last: ask again with after=<its id>" }) },
  { ...closed, description: "List object with has_more (spec §2.1)" },
);

export const ListQuery = t.Object(
  {
    after: t.Optional(t.String({ description: "a batch id: the batches after it" })),
    limit: t.Optional(t.String({ description: `${BATCH_LIMIT.min}–${BATCH_LIMIT.max}, default ${BATCH_LIMIT.default}; larger values are clamped` })),
  },
  closed,
);
