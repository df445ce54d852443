/**
 * Helpers for the relay tests: a harness with the public rate limits off (a test makes many
 * accesses from one address; rate-limits.test.ts turns them on), a tenant with a session, and
 * requests for creating, opening and fetching.
 */
import type { Config } from "../../../src/config.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const MINUTE = 60_000;
export const DAY = 86_400_000;

export function relayHarness(config?: (c: Config) => void): Harness {
  return makeHarness({
    config: (c) => {
      c.rate_limit.public_per_minute = 0;
      c.relays.access_per_ip_per_minute = 0;
      config?.(c);
    },
  });
}

export function tenant(h: Harness) {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

export const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");
/** The first bytes of a PNG: enough for a content type test (svc stores what it is given). */
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3, 255]);

export async function createRelay(h: Harness, auth: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await h.json("POST", "/v1/relays", { headers: auth, body: { objects: [{ name: "note.txt", text: "the launch code is 0000" }], ...body } });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { relay: Record<string, any>; share_url: string; secret: string };
}

export const open = (h: Harness, secret: string, body?: Record<string, unknown>) =>
  h.request("POST", `/v1/relay-access/${secret}`, body === undefined ? {} : { body });

export const openJson = (h: Harness, secret: string, body?: Record<string, unknown>) =>
  h.json("POST", `/v1/relay-access/${secret}`, body === undefined ? {} : { body });

export const fetchObject = (h: Harness, secret: string, objectId: string, body?: Record<string, unknown>) =>
  h.request("POST", `/v1/relay-access/${secret}/objects/${objectId}`, body === undefined ? {} : { body });

export const relayRow = (h: Harness, id: string) => h.ctx.db.query<Record<string, any>, [string]>("SELECT * FROM relays WHERE id = ?").get(id)!;
export const sealedOf = (h: Harness, relayId: string) =>
  h.ctx.db.query<{ sealed: string | null }, [string]>("SELECT sealed FROM relay_objects WHERE relay_id = ? ORDER BY position").all(relayId).map((r) => r.sealed);
