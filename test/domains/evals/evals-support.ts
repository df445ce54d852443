/**
 * The evals tests' gateway: the inference test gateway (real server, the stand-in upstream) with
 * stand-in models whose upstream names differ, so `[[say@UPSTREAM …]]` in a case gives each its
 * own answer, and a way to re-point a model at another upstream (svc.toml hot reload): the same
 * model id answering worse is how drift and regressions are made.
 */
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { type Gateway, type GatewayOptions, repointModel, startGateway, withModels } from "../inference/inference-support.ts";

export const USD = 1_000_000;

export async function startEvalsGateway(options: GatewayOptions = {}): Promise<Gateway> {
  return startGateway({
    catalog: withModels([
      { id: "model-b", provider: "oa", upstream: "stub-b" },
      { id: "judge-test", provider: "oa", upstream: "stub-judge" },
      // Re-pointed at stub-bad by repoint(): the same id, a worse model behind it.
      { id: "drifty", provider: "oa", upstream: "stub-good" },
      { id: "gpt-fail", provider: "oa", upstream: "stub-gpt@fail" },
    ]),
    ...options,
  });
}

/** Points a model id at another upstream name (svc.toml hot reload): see repointModel. */
export const repoint = (g: Gateway, modelId: string, upstream: string): void => repointModel(g.h, modelId, upstream);

/** Another account with a session (and, unless credit is 0, some credit). */
export function tenant(g: Gateway, credit = 10 * USD) {
  const { account, session } = accountWithSession(g.h.ctx);
  if (credit > 0) g.h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

export const ownAuth = (g: Gateway) => bearer(g.sessionToken);

/** A case the drifty model passes while it points at stub-good, and fails at stub-bad. */
export const driftCase = (n = 0) => ({ input: `[[say@stub-good yes]] [[say@stub-bad no]] question ${n}`, expected: "yes", assert: "exact" });

export const outboxOf = (g: Gateway, type: string) => g.h.ctx.outbox.since(0, 100_000).filter((e) => e.type === type);
