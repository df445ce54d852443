/**
 * TypeBox models of the hosted-agent routes: closed request bodies (an unknown field is refused
 * by name) and the exact shapes served.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { MAX_INPUT, MAX_INSTRUCTIONS, MAX_MESSAGE_BODY, MAX_SUBJECT } from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Id = t.String({ minLength: 1, maxLength: 64 });

export const AgentParams = t.Object({ id: t.String({ description: "agt_… id" }) });
export const RunParams = t.Object({ id: t.String({ description: "agt_… id" }), run_id: t.String({ description: "run_… id" }) });
export const HookParams = t.Object({ id: t.String({ description: "agt_… id" }), token: t.String({ description: "the hook token (ahk_…), from POST /v1/agents/:id/hooks/rotate" }) });

export const CreateBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    model: t.String({ minLength: 1, maxLength: 128, description: "a chat model id from GET /v1/models" }),
    instructions: t.String({ minLength: 1, maxLength: MAX_INSTRUCTIONS, description: "the system prompt of every run (sealed at rest)" }),
    tools: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 32,
        uniqueItems: true,
        description: "svc tools the agent may call (sandbox_run, state_get, state_set, state_list, memory_search, credit_balance, chat) and send_message; default none",
      }),
    ),
    mcp_servers: t.Optional(t.Array(Id, { maxItems: 16, uniqueItems: true, description: "ids of the account's MCP servers whose allowlisted tools the agent may call" })),
    key_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "the key the agent's own key is delegated from; default: a root key made for the agent" })),
    max_steps: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "model calls per run (default agents.default_max_steps, 8)" })),
    budget_micro_usd_per_run: t.Optional(Nullable(MicroUsd({ description: "a run stops once its receipts reach this; null: no per-run budget" }))),
    monthly_cap_micro_usd: t.Optional(Nullable(MicroUsd({ description: "the agent key's monthly spend cap; null: none of its own (the parent's still holds)" }))),
    enabled: t.Optional(t.Boolean({ description: "default true" })),
  },
  closed,
);

export const Agent = t.Object(
  {
    id: t.String(),
    name: t.String(),
    model: t.String(),
    instructions: t.String(),
    tools: t.Array(t.String()),
    mcp_servers: t.Array(t.String()),
    key_id: t.String({ description: "the agent's own delegated key (its secret is never shown: svc uses it for the agent)" }),
    parent_key_id: t.String({ description: "the key it was delegated from" }),
    max_steps: t.Integer({ minimum: 1 }),
    budget_micro_usd_per_run: Nullable(MicroUsd()),
    monthly_cap_micro_usd: Nullable(MicroUsd()),
    enabled: t.Boolean(),
    hook: t.Object({ enabled: t.Boolean({ description: "a hook token is live" }), signed: t.Boolean({ description: "calls must carry an HMAC signature" }) }, closed),
    triggers: t.Object({ mailbox: t.Boolean(), max_runs_per_hour: Nullable(t.Integer({ minimum: 1 })) }, closed),
    created_at: Time,
    updated_at: Time,
  },
  closed,
);

export const AgentList = t.Object({ agents: t.Array(Agent, { description: "the account's agents, newest first" }) }, closed);
export const Deleted = t.Object({ id: t.String(), deleted: t.Literal(true), cancelled_runs: t.Integer({ minimum: 0 }) }, closed);

export const GateBody = t.Object({ enabled: t.Boolean() }, closed);
export const TriggerBody = t.Object({ input: t.String({ maxLength: MAX_INPUT, description: "the run's input (the first user message; sealed at rest)" }) }, closed);
export const TriggersBody = t.Object(
  {
    mailbox: t.Optional(t.Boolean({ description: "each delivered message queues a run with the message as input" })),
    max_runs_per_hour: t.Optional(Nullable(t.Integer({ minimum: 1, maximum: 100_000, description: "mailbox runs in any sliding hour; the rest wait, none lost; null: no limit" }))),
  },
  closed,
);
export const SecretBody = t.Object({ remove: t.Optional(t.Boolean({ description: "true: stop requiring signatures" })) }, closed);

export const HookUrl = t.Object(
  { agent_id: t.String(), url: t.String({ description: "the hook URL with its token: shown this once; the previous token no longer works" }), signed: t.Boolean() },
  closed,
);
export const HookSecret = t.Object(
  { agent_id: t.String(), secret: Nullable(t.String({ description: "the HMAC key, shown this once (ahs_…)" })), signed: t.Boolean() },
  closed,
);

const RunError = Nullable(t.Object({ type: t.String(), message: t.String() }, closed));
const RunStatus = t.Union([t.Literal("queued"), t.Literal("running"), t.Literal("succeeded"), t.Literal("failed"), t.Literal("cancelled")]);
const RunFields = {
  id: t.String({ description: "run_… id; also the receipts' svc_run_id (POST /v1/runs/:id/proof)" }),
  agent_id: t.String(),
  status: RunStatus,
  trigger: t.Union([t.Literal("manual"), t.Literal("hook"), t.Literal("mailbox")]),
  message_id: Nullable(t.String()),
  turns: t.Integer({ minimum: 0, description: "model calls made" }),
  cost_micro_usd: MicroUsd(),
  error: RunError,
  created_at: Time,
  started_at: Nullable(Time),
  finished_at: Nullable(Time),
};
export const Run = t.Object(RunFields, closed);
export const RunList = t.Object({ runs: t.Array(Run, { description: "newest first, at most 100" }), agent_id: t.String() }, closed);
export const RunDetail = t.Object(
  {
    ...RunFields,
    input: t.String(),
    output: Nullable(t.String({ description: "the final answer (sealed at rest)" })),
    steps: t.Array(
      t.Object(
        {
          index: t.Integer({ minimum: 0 }),
          kind: t.Union([t.Literal("model"), t.Literal("tool")]),
          name: t.String({ description: "the model id, or the tool's name" }),
          status: t.String(),
          cost_micro_usd: MicroUsd(),
          receipt_id: Nullable(t.String()),
          duration_ms: t.Integer({ minimum: 0 }),
          at: Time,
        },
        closed,
      ),
    ),
    receipts: t.Array(
      t.Object(
        {
          id: t.String(),
          kind: t.String(),
          status: t.String(),
          cost_micro_usd: MicroUsd(),
          receipt: t.String({ description: "base64url canonical JSON payload" }),
          signature: t.String({ description: "EIP-191 signature of `receipt`" }),
          signer: t.String(),
        },
        closed,
      ),
      { description: "every receipt chained into the run, in minting order" },
    ),
    proof_url: t.String(),
  },
  closed,
);

export const HookBody = t.Unknown({ description: "any body (JSON, text, form): the run's input, as UTF-8 text" });
export const HookAccepted = t.Object({ run_id: t.String(), agent_id: t.String(), status: t.Literal("queued") }, closed);

export const SendBody = t.Object(
  {
    from_agent_id: t.Optional(Nullable(Id)),
    subject: t.Optional(Nullable(t.String({ maxLength: MAX_SUBJECT }))),
    body: t.String({ minLength: 1, maxLength: MAX_MESSAGE_BODY }),
  },
  closed,
);
const Message = t.Object(
  {
    id: t.String(),
    agent_id: t.String(),
    from_agent_id: Nullable(t.String()),
    subject: Nullable(t.String()),
    body: t.String(),
    created_at: Time,
    read_at: Nullable(Time),
    run_id: Nullable(t.String({ description: "the run the mailbox trigger started for it" })),
  },
  closed,
);
export const SentMessage = Message;
export const MessagesQuery = t.Object(
  {
    consume: t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { description: "true: mark the messages listed read" })),
    unread_only: t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { description: "true: unread messages only" })),
  },
  closed,
);
export const MessageList = t.Object(
  { messages: t.Array(Message, { description: "in delivery order, at most 100: with unread_only the oldest unread, else the newest" }), agent_id: t.String() },
  closed,
);
