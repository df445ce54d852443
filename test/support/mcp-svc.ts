/**
 * svc on a real socket for the MCP and OAuth tests: the harness's app (its own data dir, manual
 * clock) served by Bun on 127.0.0.1, with public_url set to that address — so OAuth issuers,
 * resources and redirects are the URLs clients really use — and private targets allowed (the
 * test upstreams live on 127.0.0.1).
 */
import type { Config } from "../../src/config.ts";
import { closeUpstreams } from "../../src/domains/mcp/index.ts";
import { onCleanup } from "./cleanup.ts";
import { accountWithSession, apiKeyFor } from "./fixtures.ts";
import { type Harness, makeHarness } from "./harness.ts";
import type { ManualClock } from "../../src/core/clock.ts";

export interface ServedSvc {
  h: Harness;
  base: string;
  stop(): void;
}

/**
 * `clock`: the harness's manual clock by default (a fixed day in the past). A test that hands
 * svc's cookies to a real browser passes one at the wall clock's time: the browser drops a
 * cookie whose Expires it sees in the past.
 */
export function serveSvc(config?: (c: Config) => void, clock?: ManualClock): ServedSvc {
  let handle: (r: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => handle(r) });
  const base = `http://127.0.0.1:${server.port}`;
  const h = makeHarness({
    clock,
    config: (c) => {
      c.public_url = base;
      c.webhooks.allow_private = true;
      // Many discovery and token requests from one address, on a clock that never moves by itself.
      c.rate_limit.public_per_minute = 100_000;
      c.rate_limit.public_burst = 100_000;
      config?.(c);
    },
  });
  handle = (r) => h.app.handle(r);
  const stop = () => {
    server.stop(true);
    void closeUpstreams(h.ctx);
    h.close();
  };
  onCleanup(stop);
  return { h, base, stop };
}

/** An account with a session, credit, and an API key (scopes as given). */
export function tenant(h: Harness, opts: { credit?: number; scopes?: string[] } = {}) {
  const { account, session } = accountWithSession(h.ctx);
  if (opts.credit) h.ctx.ledger.credit(account.id, opts.credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id, { scopes: opts.scopes });
  return { accountId: account.id, session: session.token, key: key.token, keyId: key.id };
}
