/**
 * Helpers for the replay tests: a gateway (test/domains/inference/inference-support.ts), an
 * original chat call through the real route with the test key, and the capsule routes with the
 * account's session.
 */
import { createHash } from "node:crypto";
import { expect } from "bun:test";
import { bearer } from "../../support/harness.ts";
import type { Gateway } from "../inference/inference-support.ts";

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export const session = (g: Gateway, token = g.sessionToken) => ({ headers: bearer(token) });

export interface Original {
  body: Record<string, unknown>;
  receiptId: string;
  text: string;
}

/** One chat completion as an agent would make it; answers the body sent, its receipt id and the reply's text. */
export async function originalCall(g: Gateway, body: Record<string, unknown>, path = "/v1/chat/completions"): Promise<Original> {
  const res = await g.h.request("POST", path, { headers: bearer(g.key), body });
  expect(res.status).toBe(200);
  const json = (await res.json()) as any;
  const text = path === "/v1/messages" ? json.content[0].text : json.choices[0].message.content;
  return { body, receiptId: res.headers.get("x-svc-receipt-id")!, text };
}

export const seal = (g: Gateway, body: unknown, token = g.sessionToken) => g.h.json("POST", "/v1/replay/capsules", { ...session(g, token), body });

export const replay = (g: Gateway, id: string, token = g.sessionToken) => g.h.json("POST", `/v1/replay/capsules/${id}/replay`, session(g, token));

/** A capsule of `o`, sealed with confirm_seal and the original output. */
export async function capsuleOf(g: Gateway, o: Original): Promise<any> {
  const r = await seal(g, { receipt_id: o.receiptId, confirm_seal: true, request: o.body, output: o.text });
  expect(r.status).toBe(201);
  return r.body;
}
