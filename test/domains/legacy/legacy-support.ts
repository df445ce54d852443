/**
 * Helpers for the legacy tests: a harness with the public rate limit off and the area's sweep
 * registered (only legacy's jobs, so a runDue moves legacy plans and nothing else), tenants with
 * a session and a linked wallet, and the plan requests.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../../../src/config.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { legacyModule } from "../../../src/domains/legacy/module.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export function legacyHarness(config?: (c: Config) => void): Harness {
  const h = makeHarness({
    config: (c) => {
      c.rate_limit.public_per_minute = 0;
      config?.(c);
    },
  });
  legacyModule.jobs!(h.ctx);
  return h;
}

export interface Tenant {
  accountId: string;
  auth: Record<string, string>;
  /** Lowercase 0x address linked to the account. */
  wallet: string;
}

export const randomWallet = (): string => `0x${randomBytes(20).toString("hex")}`;

export function tenant(h: Harness): Tenant {
  const { account, session } = accountWithSession(h.ctx);
  const wallet = randomWallet();
  addWallet(h.ctx, account.id, wallet);
  return { accountId: account.id, auth: bearer(session.token), wallet };
}

export const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64");

export async function createPlan(h: Harness, t: Tenant, body: Record<string, unknown>) {
  const r = await h.json("POST", "/v1/legacy/plans", {
    headers: t.auth,
    body: { name: "for the family", checkin_interval_s: 86_400, warning_period_s: 2 * 86_400, ...body },
  });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { plan: Record<string, any>; claim_links: { beneficiary_id: string; label: string | null; wallet: string | null; token: string; url: string }[] };
}

/** Moves the clock and runs the jobs that fell due (the sweep among them). */
export async function advance(h: Harness, ms: number): Promise<void> {
  h.clock.advance(ms);
  await h.ctx.scheduler.runDue();
}

export const plan = async (h: Harness, t: Tenant, id: string) => (await h.json("GET", `/v1/legacy/plans/${id}`, { headers: t.auth })).body;

export const planRow = (h: Harness, id: string) => h.ctx.db.query<Record<string, any>, [string]>("SELECT * FROM legacy_plans WHERE id = ?").get(id)!;

export const eventsOf = (h: Harness, type: string) =>
  h.ctx.db
    .query<{ account_id: string; payload: string }, [string]>("SELECT account_id, payload FROM outbox_events WHERE type = ? ORDER BY seq")
    .all(type)
    .map((e) => ({ account_id: e.account_id, payload: JSON.parse(e.payload) as Record<string, any> }));
