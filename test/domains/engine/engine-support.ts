/**
 * Helpers for the engine tests: the session-authenticated /v1/engine calls through the harness
 * (so each answer is checked against the OpenAPI document), and an independent canonical-JSON
 * sha256 of a spec — written here, not imported from src/core, so a fault there cannot agree with
 * itself.
 */
import { createHash } from "node:crypto";
import { bearer, type Harness } from "../../support/harness.ts";

export const session = (token: string) => ({ headers: bearer(token) });

export function createBuild(h: Harness, token: string, body: unknown) {
  return h.json("POST", "/v1/engine/builds", { ...session(token), body });
}

export const publish = (h: Harness, token: string, id: string) => h.json("POST", `/v1/engine/builds/${id}/publish`, session(token));
export const unpublish = (h: Harness, token: string, id: string) => h.json("POST", `/v1/engine/builds/${id}/unpublish`, session(token));
export const resolve = (h: Harness, token: string, slug: string) => h.json("GET", `/v1/engine/resolve/${slug}`, session(token));

/** A spec with a scripted-free system prompt that is easy to find upstream. */
export const spec = (over: Record<string, unknown> = {}) => ({
  model: "gpt-test",
  system_prompt: "ENGINE-PROMPT: you are the acme support engine.",
  parameters: { temperature_milli: 300, max_tokens: 50 },
  ...over,
});

/** Canonical JSON as docs/engine.md states it: keys sorted by code point, no whitespace, integers only. */
function canonical(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value as object).sort((a, b) => {
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  });
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

export const specSha256 = (s: unknown) => createHash("sha256").update(canonical(s), "utf8").digest("hex");
