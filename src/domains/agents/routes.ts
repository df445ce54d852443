/**
 * Hosted agents (spec §4.4, §4.1, §4.3; docs/agents.md). Thin: each route validates, calls one
 * service function and shapes the answer.
 *
 *   POST   /v1/agents                       define an agent (session; 20 per account)
 *   GET    /v1/agents                       {agents}
 *   DELETE /v1/agents/:id                   revoke its key, cancel queued runs, keep history
 *   POST   /v1/agents/:id/gate              {enabled}
 *   POST   /v1/agents/:id/trigger           {input} → a queued run (201)
 *   POST   /v1/agents/:id/triggers          {mailbox?, max_runs_per_hour?}
 *   POST   /v1/agents/:id/hooks/rotate      the hook URL with a fresh token, once
 *   POST   /v1/agents/:id/hooks/disable     the token dies
 *   POST   /v1/agents/:id/hooks/secret      {remove?} the HMAC secret, once
 *   GET    /v1/agents/:id/runs              {runs, agent_id} (100, newest first)
 *   GET    /v1/agents/:id/runs/:run_id      steps, output, receipts
 *   POST   /v1/agents/:id/hooks/:token      public: 202 {run_id} (hooks.ts)
 *   POST   /v1/agents/:id/messages          API key (mailbox): to another of your agents
 *   GET    /v1/agents/:id/messages          API key (mailbox): ?consume=&unread_only=
 */
import { Elysia, t } from "elysia";
import { rawBody } from "../../core/body.ts";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { disableHook, receiveHook, rotateHook, setHookSecret } from "./hooks.ts";
import { listMessages, sendMessage } from "./mailbox.ts";
import * as M from "./models.ts";
import { getRun, listRuns, runView } from "./runs.ts";
import { createAgent, deleteAgent, gateAgent, listAgents, setTriggers, triggerAgent } from "./service.ts";
import { ownAgentWithHistory } from "./store.ts";

const tags = ["agents"];
const session = [{ session: [] }];
const doc = (summary: string, security: Record<string, never[]>[], description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function agentRoutes(ctx: Context) {
  const manage = new Elysia({ prefix: "/v1/agents" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return createAgent(ctx, principal.accountId, body);
      },
      {
        body: M.CreateBody,
        response: { 201: M.Agent, ...errors(404, 409) },
        ...doc(
          "Define a hosted agent; it runs under its own delegated key, bounded by its caps",
          session,
          "409 agent_limit_reached past 20 agents per account; 404 for a model or key_id this account does not have.",
        ),
      },
    )
    .get("", ({ principal }) => namedList("agents", listAgents(ctx, principal.accountId)), { response: { 200: M.AgentList }, ...doc("The account's agents", session) })
    .delete("/:id", ({ principal, params }) => deleteAgent(ctx, principal.accountId, params.id), {
      params: M.AgentParams,
      response: { 200: M.Deleted },
      ...doc("Delete an agent: its key is revoked, queued runs cancelled, run history kept", session),
    })
    .post("/:id/gate", ({ principal, params, body }) => gateAgent(ctx, principal.accountId, params.id, body.enabled), {
      params: M.AgentParams,
      body: M.GateBody,
      response: { 200: M.Agent },
      ...doc("Turn an agent on or off; off, it queues nothing and its hook answers 404", session),
    })
    .post(
      "/:id/trigger",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return runView(triggerAgent(ctx, principal.accountId, params.id, body.input));
      },
      { params: M.AgentParams, body: M.TriggerBody, response: { 201: M.Run, ...errors(409) }, ...doc("Queue a run with this input", session, "409 agent_disabled when the agent is gated off.") },
    )
    .post("/:id/triggers", ({ principal, params, body }) => setTriggers(ctx, principal.accountId, params.id, body), {
      params: M.AgentParams,
      body: M.TriggersBody,
      response: { 200: M.Agent },
      ...doc("Set the mailbox trigger and its max_runs_per_hour", session),
    })
    .post("/:id/hooks/rotate", ({ principal, params }) => rotateHook(ctx, principal.accountId, params.id), {
      params: M.AgentParams,
      response: { 200: M.HookUrl },
      ...doc("A fresh hook URL (shown once); the previous token stops working", session),
    })
    .post("/:id/hooks/disable", ({ principal, params }) => disableHook(ctx, principal.accountId, params.id), {
      params: M.AgentParams,
      response: { 200: M.Agent },
      ...doc("Kill the hook token (rotate makes a new one)", session),
    })
    .post("/:id/hooks/secret", ({ principal, params, body }) => setHookSecret(ctx, principal.accountId, params.id, body?.remove === true), {
      params: M.AgentParams,
      body: t.Optional(M.SecretBody),
      response: { 200: M.HookSecret },
      ...doc(
        "Set or rotate the hook's HMAC secret (shown once), or remove it",
        session,
        "Once set, a hook call must send X-Svc-Timestamp (unix seconds, within 5 minutes) and X-Svc-Signature: sha256=<hex HMAC-SHA256 of \"<timestamp>.<raw body>\">.",
      ),
    })
    .get(
      "/:id/runs",
      ({ principal, params }) => {
        const agent = ownAgentWithHistory(ctx, principal.accountId, params.id);
        return namedList("runs", listRuns(ctx, agent.id), { agent_id: agent.id });
      },
      { params: M.AgentParams, response: { 200: M.RunList }, ...doc("The agent's runs, newest first, at most 100 (a deleted agent's too)", session) },
    )
    .get("/:id/runs/:run_id", ({ principal, params }) => getRun(ctx, ownAgentWithHistory(ctx, principal.accountId, params.id).id, params.run_id), {
      params: M.RunParams,
      response: { 200: M.RunDetail },
      ...doc("One run: status, steps (tool names and costs), output, error, and its receipts", session),
    });

  const hooks = new Elysia({ prefix: "/v1/agents" }).use(guards.public(ctx)).post(
    "/:id/hooks/:token",
    ({ params, request, headers, set }) => {
      const run = receiveHook(ctx, params.id, params.token, rawBody(request), headers);
      set.status = 202;
      return { run_id: run.id, agent_id: run.agent_id, status: "queued" as const };
    },
    {
      params: M.HookParams,
      body: M.HookBody,
      response: { 202: M.HookAccepted, ...errors(401, 429) },
      detail: {
        summary: "Inbound hook: queue a run of the agent with the body as its input",
        description: "404 alike for an unknown, rotated, disabled or gated token; 401 for a missing or wrong signature once the hook has a secret; 413 above agents.hook_max_body_bytes; 429 per token.",
        tags,
        security: [],
      },
    },
  );

  const mailbox = new Elysia({ prefix: "/v1/agents" })
    .use(guards.apiKey(ctx, "mailbox"))
    .post(
      "/:id/messages",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return sendMessage(ctx, principal.accountId, params.id, body);
      },
      { params: M.AgentParams, body: M.SendBody, response: { 201: M.SentMessage, ...errors(429) }, ...doc("Send a message to one of your agents' mailboxes", [{ apiKey: [] }]) },
    )
    .get(
      "/:id/messages",
      ({ principal, params, query }) =>
        namedList("messages", listMessages(ctx, principal.accountId, params.id, { consume: query.consume === "true", unreadOnly: query.unread_only === "true" }), { agent_id: params.id }),
      { params: M.AgentParams, query: M.MessagesQuery, response: { 200: M.MessageList }, ...doc("An agent's mailbox in delivery order, at most 100: with unread_only the oldest unread, else the newest", [{ apiKey: [] }]) },
    );

  return [manage, hooks, mailbox];
}
