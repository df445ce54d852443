/** Account model routes: an account's requests for one model served by another, named on the receipt. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { clearModelRoute, completeChat, modelRoutesOf, setModelRoute } from "../../../src/domains/inference/index.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { type Gateway, receiptFromHeaders, startGateway } from "./inference-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());

test("a route sends the account's calls for a model to another, for this account only; the receipt names both", async () => {
  setModelRoute(g.h.ctx, g.accountId, "gpt-test", "claude-test");
  expect(modelRoutesOf(g.h.ctx, g.accountId)).toMatchObject([{ from: "gpt-test", to: "claude-test" }]);
  g.stub.clear();
  const { response } = await g.openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] }).withResponse();
  expect(g.stub.last()!.path).toBe("/v1/messages");
  const receipt = await receiptFromHeaders(g, response.headers);
  expect(receipt.resource).toBe("claude-test");
  expect(receipt.attestations.routing.routed_from).toBe("gpt-test");

  // Another account's calls are untouched.
  const other = accountWithSession(g.h.ctx);
  g.h.ctx.ledger.credit(other.account.id, 1_000_000, { type: "deposit" });
  await g.clientsFor(apiKeyFor(g.h.ctx, other.account.id).token).openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] });
  expect(g.stub.last()!.path).toBe("/v1/chat/completions");

  clearModelRoute(g.h.ctx, g.accountId, "gpt-test");
  await g.openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] });
  expect(g.stub.last()!.path).toBe("/v1/chat/completions");
});

test("a route must join two chat models of the catalogue", () => {
  expect(() => setModelRoute(g.h.ctx, g.accountId, "gpt-test", "embed-test")).toThrow("to");
  expect(() => setModelRoute(g.h.ctx, g.accountId, "nope", "gpt-test")).toThrow("from");
  expect(() => setModelRoute(g.h.ctx, g.accountId, "gpt-test", "gpt-test")).toThrow("differ");
});

test("work that names its model (an eval case, a juror) is served by that model whatever the account's routes", async () => {
  setModelRoute(g.h.ctx, g.accountId, "gpt-test", "claude-test");
  const caller = { accountId: g.accountId, keyId: null };
  const messages = [{ role: "user" as const, content: "hello" }];
  await completeChat(g.h.ctx, { caller, model: "gpt-test", messages });
  expect(g.stub.last()!.path).toBe("/v1/messages");
  const exact = await completeChat(g.h.ctx, { caller, model: "gpt-test", messages, exactModel: true });
  expect(g.stub.last()!.path).toBe("/v1/chat/completions");
  expect(exact.settlement.receipt).not.toBeNull();
  clearModelRoute(g.h.ctx, g.accountId, "gpt-test");
});
