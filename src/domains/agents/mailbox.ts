/**
 * Agent mailboxes: messages to one of the account's agents, from the API (an API key of the
 * account) or from another agent's send_message tool. Subject and body are sealed at rest.
 *
 * The mailbox trigger: while it is on (POST /v1/agents/:id/triggers {mailbox: true}) and the
 * agent is enabled, every delivered message queues one run of the agent with the message as its
 * input — never more than max_runs_per_hour mailbox runs in any sliding hour. Messages past the
 * limit wait ('waiting'), oldest first, and a scheduler job dispatches them when the window
 * frees: none is lost, none runs over the rate (no closed hour holds more than the limit). A dispatched message counts as read.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { MESSAGES_LISTED } from "./limits.ts";
import { queueRun } from "./runs.ts";
import { agentRow, ownAgent } from "./store.ts";

const HOUR_MS = 3_600_000;
export const MAILBOX_JOB = "agents.mailbox";

interface MessageRow {
  id: string;
  account_id: string;
  agent_id: string;
  from_agent_id: string | null;
  subject_sealed: string | null;
  body_sealed: string;
  created_at: number;
  read_at: number | null;
  dispatch: "waiting" | "dispatched" | null;
  run_id: string | null;
}

export interface MessageView {
  id: string;
  agent_id: string;
  from_agent_id: string | null;
  subject: string | null;
  body: string;
  created_at: string;
  read_at: string | null;
  /** The run the mailbox trigger started for it, or null. */
  run_id: string | null;
}

export interface MessageInput {
  from_agent_id?: string | null;
  subject?: string | null;
  body: string;
}

const subjectAad = (id: string) => `agent_messages:${id}:subject`;
const bodyAad = (id: string) => `agent_messages:${id}:body`;

function view(ctx: Context, row: MessageRow): MessageView {
  return {
    id: row.id,
    agent_id: row.agent_id,
    from_agent_id: row.from_agent_id,
    subject: row.subject_sealed === null ? null : ctx.sealer.openText(row.subject_sealed, subjectAad(row.id)),
    body: ctx.sealer.openText(row.body_sealed, bodyAad(row.id)),
    created_at: isoTime(row.created_at),
    read_at: row.read_at === null ? null : isoTime(row.read_at),
    run_id: row.run_id,
  };
}

const mailboxFull = (limit: number) =>
  new ApiError(429, "mailbox_full", `the agent's mailbox holds ${limit} unread messages, the most allowed; it must read some first (GET /v1/agents/:id/messages?consume=true)`, { limit });

/** Delivers a message to `toAgentId`'s mailbox (an agent of `accountId`), then dispatches it if the mailbox trigger takes it. */
export function sendMessage(ctx: Context, accountId: string, toAgentId: string, input: MessageInput): MessageView {
  const row = ctx.tx.run(() => {
    const to = ownAgent(ctx, accountId, toAgentId);
    if (input.from_agent_id != null) {
      const from = agentRow(ctx, input.from_agent_id);
      if (!from || from.account_id !== accountId || from.deleted_at !== null) throw invalidField("from_agent_id", "is not one of this account's agents");
    }
    const unread = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM agent_messages WHERE agent_id = ? AND read_at IS NULL").get(to.id)!.n;
    if (unread >= ctx.config.agents.mailbox_max_unread) throw mailboxFull(ctx.config.agents.mailbox_max_unread);
    const id = newId("msg");
    const takes = to.mailbox_trigger === 1 && to.enabled === 1;
    return ctx.db
      .query<MessageRow, (string | number | null)[]>(
        `INSERT INTO agent_messages (id, account_id, agent_id, from_agent_id, subject_sealed, body_sealed, created_at, dispatch)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        id,
        accountId,
        to.id,
        input.from_agent_id ?? null,
        input.subject == null ? null : ctx.sealer.seal(input.subject, subjectAad(id)),
        ctx.sealer.seal(input.body, bodyAad(id)),
        ctx.clock.now(),
        takes ? "waiting" : null,
      )!;
  });
  if (row.dispatch === "waiting") dispatchMailbox(ctx, row.agent_id);
  return view(ctx, ctx.db.query<MessageRow, [string]>("SELECT * FROM agent_messages WHERE id = ?").get(row.id)!);
}

/** The agent's messages in delivery order, at most 100 (unread only: the oldest unread; else the newest); consume marks those listed read. */
export function listMessages(ctx: Context, accountId: string, agentId: string, opts: { consume?: boolean; unreadOnly?: boolean }): MessageView[] {
  return ctx.tx.run(() => {
    const agent = ownAgent(ctx, accountId, agentId);
    // Unread: the oldest first (a queue to work through with consume). All: the newest 100, in order.
    const rows = opts.unreadOnly
      ? ctx.db.query<MessageRow, [string, number]>("SELECT * FROM agent_messages WHERE agent_id = ? AND read_at IS NULL ORDER BY created_at, rowid LIMIT ?").all(agent.id, MESSAGES_LISTED)
      : ctx.db.query<MessageRow, [string, number]>("SELECT * FROM agent_messages WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(agent.id, MESSAGES_LISTED).reverse();
    if (opts.consume) {
      const now = ctx.clock.now();
      const mark = ctx.db.prepare("UPDATE agent_messages SET read_at = ? WHERE id = ? AND read_at IS NULL");
      for (const r of rows) if (r.read_at === null && mark.run(now, r.id).changes) r.read_at = now;
    }
    return rows.map((r) => view(ctx, r));
  });
}

/** A message as a run's input: who sent it, its subject, its body. */
function runInput(ctx: Context, row: MessageRow): string {
  const m = view(ctx, row);
  const from = m.from_agent_id ? `agent ${m.from_agent_id}` : "the API";
  return `Message ${m.id} from ${from}${m.subject ? `\nSubject: ${m.subject}` : ""}\n\n${m.body}`;
}

/**
 * Queues a run for each waiting message the hourly limit allows now; when some must wait, a job
 * comes back when the oldest mailbox run of the window leaves it. Returns the runs queued.
 */
export function dispatchMailbox(ctx: Context, agentId: string): number {
  return ctx.tx.run(() => {
    const agent = agentRow(ctx, agentId);
    if (!agent || agent.deleted_at !== null || agent.enabled !== 1 || agent.mailbox_trigger !== 1) return 0;
    const now = ctx.clock.now();
    const since = now - HOUR_MS;
    let room = Number.POSITIVE_INFINITY;
    if (agent.max_runs_per_hour !== null) {
      const used = ctx.db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM agent_runs WHERE agent_id = ? AND trigger = 'mailbox' AND created_at >= ?").get(agent.id, since)!.n;
      room = Math.max(0, agent.max_runs_per_hour - used);
    }
    const waiting = ctx.db
      .query<MessageRow, [string, number]>("SELECT * FROM agent_messages WHERE agent_id = ? AND dispatch = 'waiting' ORDER BY created_at, rowid LIMIT ?")
      .all(agent.id, Number.isFinite(room) ? room + 1 : -1);
    const taken = waiting.slice(0, Number.isFinite(room) ? room : undefined);
    const mark = ctx.db.prepare("UPDATE agent_messages SET dispatch = 'dispatched', run_id = ?, read_at = coalesce(read_at, ?) WHERE id = ?");
    for (const m of taken) mark.run(queueRun(ctx, agent, "mailbox", runInput(ctx, m), m.id).id, now, m.id);
    if (waiting.length > taken.length) {
      // The window frees when its oldest mailbox run turns an hour old.
      const oldest = ctx.db
        .query<{ at: number }, [string, number]>("SELECT min(created_at) AS at FROM agent_runs WHERE agent_id = ? AND trigger = 'mailbox' AND created_at >= ?")
        .get(agent.id, since)!.at;
      const runAt = (oldest ?? now) + HOUR_MS + 1;
      // Keyed by its time too: the job that runs this re-schedules the next one while it still holds its own key.
      ctx.scheduler.schedule(MAILBOX_JOB, { agent_id: agent.id }, { runAt, uniqueKey: `agent_mailbox:${agent.id}:${runAt}` });
    }
    return taken.length;
  });
}
