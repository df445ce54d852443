/**
 * svc webhooks list|deliveries|replay|enable|revoke: operators looking after an account's
 * webhooks, through the same services as /v1/webhooks. A running svc serve picks up what these
 * queue (attempts are jobs in the database).
 */
import { getAccount } from "../accounts/index.ts";
import { replayMissed } from "./replay.ts";
import { enableWebhook, listDeliveries, listWebhooks, revokeWebhook } from "./service.ts";
import { getWebhookRow, type WebhookRow } from "./store.ts";
import type { Context } from "../../context.ts";
import { accountOption, type Command, CommandFailed, type Group, locationOptions, requireAccount, str, UsageError } from "../../cli/command.ts";

const json = { type: "boolean", description: "print JSON" } as const;
const webhookArg = { args: "WEBHOOK_ID", positionals: { min: 1, max: 1 } };

function webhook(ctx: Context, id: string): WebhookRow {
  const row = getWebhookRow(ctx, id);
  if (!row) throw new CommandFailed(`no webhook ${id}`);
  return row;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** --since: an RFC 3339 time, or how long ago (30m, 6h, 2d). */
export function parseSince(text: string, now: number): number {
  const ago = /^(\d+)([smhd])$/.exec(text.trim());
  if (ago) return now - Number(ago[1]) * UNITS[ago[2]!]!;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}/.test(text)) throw new UsageError(`--since: expected an RFC 3339 time (2026-11-21T09:00:00Z) or a duration ago (90m, 6h, 2d), got "${text}"`);
  return at;
}

const list: Command = {
  name: "webhooks list",
  summary: "An account's webhooks and their state",
  options: { ...locationOptions, json, account: accountOption },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const hooks = listWebhooks(ctx, accountId);
      if (values.json) return void console.log(JSON.stringify(hooks, null, 2));
      if (!hooks.length) return void console.log("no webhooks");
      for (const w of hooks) {
        const failing = w.consecutive_failures ? `  ${w.consecutive_failures} failed in a row` : "";
        console.log(`${w.id}  ${w.status.padEnd(8)}  ${w.events.join(",")}  ${new URL(w.url).origin}${failing}`);
      }
    });
  },
};

const deliveries: Command = {
  name: "webhooks deliveries",
  summary: "A webhook's latest deliveries (newest event first, at most 50)",
  ...webhookArg,
  options: { ...locationOptions, json },
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const row = webhook(ctx, positionals[0]!);
      const rows = listDeliveries(ctx, row.account_id, row.id);
      if (values.json) return void console.log(JSON.stringify(rows, null, 2));
      if (!rows.length) return void console.log("no deliveries");
      for (const d of rows) {
        const when = d.delivered_at ? `delivered ${d.delivered_at}` : d.next_attempt_at ? `next attempt ${d.next_attempt_at}` : "";
        console.log(`${d.event_id}  ${d.event_type.padEnd(18)}  ${d.status.padEnd(9)}  attempts ${d.attempts}  ${d.response_status ?? "-"}  ${when}${d.last_error ? `  (${d.last_error})` : ""}`);
      }
    }),
};

const replay: Command = {
  name: "webhooks replay",
  summary: "Queue again the events a webhook missed since a time (after an outage longer than the retries)",
  ...webhookArg,
  options: { ...locationOptions, json, since: { type: "string", value: "TIME", description: "RFC 3339 time or a duration ago (90m, 6h, 2d); within the last 30 days (required)" } },
  details: `
Queues every event since TIME that the webhook subscribes to and did not receive: deliveries
that failed every attempt, that were skipped while it was disabled, and events it never got
while disabled. Delivered and still-pending ones are left alone. Each gets up to four attempts
again, with its original event id. A disabled webhook must be enabled first (svc webhooks enable).
Up to 10000 events per run; run it again with the same --since when it says there are more.`,
  run: ({ values, positionals }, host) => {
    const sinceText = str(values.since);
    if (!sinceText) throw new UsageError("--since TIME is required");
    const since = parseSince(sinceText, Date.now());
    return host.withContext(values, (ctx) => {
      const row = webhook(ctx, positionals[0]!);
      const result = replayMissed(ctx, row, since);
      ctx.audit.record("cli", "webhook.replay", row.id, { since: result.since, queued: result.queued });
      if (values.json) return void console.log(JSON.stringify(result, null, 2));
      console.log(`queued ${result.queued} event${result.queued === 1 ? "" : "s"} for ${row.id} since ${result.since}${result.more ? "; more remain: run it again" : ""}`);
    });
  },
};

const enable: Command = {
  name: "webhooks enable",
  summary: "Re-enable a webhook disabled after repeated failures (revoked ones stay revoked)",
  ...webhookArg,
  options: locationOptions,
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const row = webhook(ctx, positionals[0]!);
      const view = enableWebhook(ctx, row.account_id, row.id);
      ctx.audit.record("cli", "webhook.enable", row.id, {});
      console.log(`${view.id} is ${view.status}; events it missed meanwhile: svc webhooks replay ${view.id} --since <time>`);
    }),
};

const revoke: Command = {
  name: "webhooks revoke",
  summary: "Revoke a webhook (as DELETE /v1/webhooks/:id; final)",
  ...webhookArg,
  options: locationOptions,
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const row = webhook(ctx, positionals[0]!);
      const view = revokeWebhook(ctx, row.account_id, row.id);
      ctx.audit.record("cli", "webhook.revoke", row.id, {});
      console.log(`${view.id} is ${view.status} (since ${view.disabled_at})`);
    }),
};

export const webhooksGroup: Group = { name: "webhooks", summary: "Webhooks: list, deliveries, replay missed events, enable, revoke", commands: [list, deliveries, replay, enable, revoke] };
