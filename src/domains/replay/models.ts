/**
 * TypeBox models of the replay routes: closed request bodies (an unknown field is refused and
 * named: a request parameter the replay could not send again must not be silently dropped) and
 * the exact shapes served (service.ts builds them), so the OpenAPI document describes what is
 * served. Sizes come from limits.ts; docs/replay.md explains them.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const open = { additionalProperties: true } as const;

const hex64 = (description: string) => t.String({ pattern: "^[0-9a-f]{64}$", error: "must be a sha256 digest: 64 lowercase hex characters", description });

const Message = t.Object(
  {
    role: t.Union([t.Literal("system"), t.Literal("user"), t.Literal("assistant")], { error: "must be system, user or assistant" }),
    content: t.String({ maxLength: L.MAX_MESSAGE_CHARS, error: `must be a string of at most ${L.MAX_MESSAGE_CHARS} characters (text content only)` }),
  },
  closed,
);

/** The original chat completion body, as the caller sent it to POST /v1/chat/completions (the fields a replay can send again). */
export const CapsuleRequest = t.Object(
  {
    model: t.String({ minLength: 1, maxLength: L.MAX_MODEL_ID_CHARS, description: "the model the request named" }),
    messages: t.Array(Message, { minItems: 1, maxItems: L.MAX_MESSAGES, error: `must be an array of 1-${L.MAX_MESSAGES} messages` }),
    max_tokens: t.Optional(Int({ minimum: 1, error: "must be a positive integer" })),
    max_completion_tokens: t.Optional(Int({ minimum: 1, error: "must be a positive integer" })),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 2, error: "must be a number from 0 to 2" })),
    response_format: t.Optional(t.Object({ type: t.Union([t.Literal("json_object"), t.Literal("text")], { error: "must be json_object or text" }) }, closed)),
    stream: t.Optional(t.Boolean({ description: "as sent; must match the receipt (a replay itself is never streamed)" })),
    svc_run_id: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_ID_CHARS, description: "as sent; must be the receipt's run" })),
    svc_context: t.Optional(
      t.Array(t.Union([t.String(), t.Object({ content: t.String() }, open), t.Object({ text: t.String() }, open)], { error: "must be a string, or an object with a string `content` (or `text`)" }), {
        minItems: 1,
        maxItems: L.MAX_CONTEXT_DOCUMENTS,
        description: "as sent: their Merkle root must be the receipt's context attestation (never sealed: svc_context is not sent upstream)",
      }),
    ),
    svc_source_set: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_ID_CHARS, description: "as sent: must be the set the receipt's source_set attestation names" })),
  },
  { ...closed, description: "the chat completion request as sent; other fields (tools, top_p, seed, n, …) cannot be replayed and are refused" },
);

export const CreateBody = t.Object(
  {
    receipt_id: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_ID_CHARS, description: "the call's receipt (rcpt_…); or run_id" })),
    run_id: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_ID_CHARS, description: "a run holding exactly one chat inference receipt; or receipt_id" })),
    confirm_seal: t.Optional(t.Boolean({ description: "must be true: the request's content is kept, sealed, until DELETE" })),
    request: CapsuleRequest,
    output: t.Optional(t.String({ maxLength: L.MAX_MESSAGE_CHARS, description: "the original reply's text (choices[0].message.content); only its sha256 is kept" })),
    output_sha256: t.Optional(hex64("or the sha256 of that text's UTF-8 bytes")),
  },
  closed,
);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const Time = t.String({ format: "date-time" });

const SignedReceipt = {
  receipt_id: t.String(),
  receipt: Statement,
  signature: Signature,
  signer: Address,
};

const LastReplay = t.Object(
  {
    receipt_id: t.String({ description: "the replay call's receipt" }),
    output_sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
    matches: t.Boolean(),
    replayed_at: Time,
  },
  closed,
);

export const Capsule = t.Object(
  {
    id: t.String({ description: "rcap_…" }),
    receipt_id: t.String({ description: "the original call's receipt" }),
    run_id: Nullable(t.String({ description: "the original receipt's run" })),
    model: t.String({ description: "the model that served the original call; a replay asks for exactly it" }),
    message_count: Int({ minimum: 1 }),
    parameters: t.Object(
      {
        max_tokens: Nullable(Int({ minimum: 1 })),
        temperature: Nullable(t.Number()),
        json: t.Boolean({ description: "response_format json_object" }),
      },
      closed,
    ),
    request_sha256: t.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the sealed request's JSON text" }),
    output_sha256: t.String({ pattern: "^[0-9a-f]{64}$", description: "the original output's fingerprint, as the caller stated it" }),
    context_merkle_root: Nullable(t.String({ description: "the receipt's context attestation, checked against svc_context" })),
    source_set: Nullable(t.Object({ id: t.String(), fingerprint: t.String() }, closed)),
    sealed: t.Boolean({ description: "false once DELETE destroyed the content" }),
    destroyed_at: Nullable(Time),
    replay_count: Int({ minimum: 0 }),
    last_replay: Nullable(LastReplay),
    created_at: Time,
  },
  { ...closed, description: "metadata only: never the messages" },
);

export const CapsuleList = t.Object({ capsules: t.Array(Capsule, { maxItems: L.MAX_CAPSULES_PER_ACCOUNT, description: "newest first" }) }, closed);

export const ReplayResult = t.Object(
  {
    capsule_id: t.String(),
    matches: t.Boolean({ description: "the replay's output_sha256 equals the original's" }),
    output: t.String({ description: "the replay's reply text, returned this once (not stored)" }),
    original: t.Object({ ...SignedReceipt, output_sha256: t.String({ pattern: "^[0-9a-f]{64}$" }) }, closed),
    replay: t.Object(
      {
        ...SignedReceipt,
        output_sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
        provider: t.String(),
        cost_micro_usd: MicroUsd(),
      },
      closed,
    ),
    replayed_at: Time,
    verify: t.String(),
  },
  closed,
);
