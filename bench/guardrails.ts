#!/usr/bin/env bun
/**
 * What guardrails add to a chat call: every detector on (pii and secrets redacting both ways,
 * prompt_injection blocking input, a 50-term blocklist blocking both), over a 2 KB prompt and a
 * 1 KB reply, on a real context (SQLite, the guardrail read per call as the pipeline does).
 * Measured per call: the guard looked up and the prompt's text checked and redacted (what runs
 * before the reservation), the reply's text checked and redacted, and the receipt stamp — the
 * whole of the work a guarded non-streamed call does that an unguarded one does not. Also a
 * 1 KB streamed reply in 4-character deltas through the output window.
 *
 * Usage: bun bench/guardrails.ts [--iterations 5000] [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../src/core/log.ts";
import { createAccount } from "../src/domains/accounts/service.ts";
import { guardFor } from "../src/domains/guardrails/index.ts";
import { createGuardrail } from "../src/domains/guardrails/service.ts";
import { mapPrompt } from "../src/domains/inference/scrub.ts";
import { loadConfig, openContext } from "../src/open.ts";
import { setupDataDir } from "../src/setup.ts";
import { log, machineInfo, parseFlags } from "./support.ts";

const { values } = parseFlags({ iterations: { type: "string", default: "5000" } }, "usage: bun bench/guardrails.ts [--iterations N]");
const iterations = Number(values.iterations);

const PARAGRAPH =
  "Our quarterly review covers the migration of the billing service, the new retry policy for webhooks, and the onboarding flow. " +
  "Contact the owner at dana.lee@example.com or +1 415 555 2671 if the staging deploy fails; the runbook lists the rollback steps. ";
const PROMPT = PARAGRAPH.repeat(Math.ceil(2048 / PARAGRAPH.length)).slice(0, 2048);
const REPLY = ("The plan is sound. Roll out behind the flag, watch error rates for an hour, then widen it. " + "Key sk-proj-Zx81vQ2mR7tLk4Pw9Nc3Hb6Yd0Fs5Ju2 must be rotated. ").repeat(8).slice(0, 1024);
const TERMS = Array.from({ length: 50 }, (_, i) => `codename-${i} internal`);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function measure(name: string, fn: () => void) {
  for (let i = 0; i < 200; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  const r = { case: name, p50_us: Math.round(percentile(times, 50)), p99_us: Math.round(percentile(times, 99)) };
  log(`${name}: p50 ${r.p50_us} µs, p99 ${r.p99_us} µs`);
  return r;
}

const root = mkdtempSync(join(tmpdir(), "svc-bench-guardrails-"));
try {
  setupDataDir({ configPath: join(root, "svc.toml"), dataDir: root, replica: "off" });
  const ctx = openContext(loadConfig({ dataDir: root }, {}), { log: silentLogger });
  const accountId = createAccount(ctx).id;
  createGuardrail(ctx, accountId, {
    name: "everything",
    detectors: [
      { type: "pii", direction: "both", action: "redact" },
      { type: "secrets", direction: "both", action: "redact" },
      { type: "prompt_injection", direction: "input", action: "block" },
      { type: "blocklist", direction: "both", action: "block", options: { terms: TERMS } },
    ],
  });
  const call = { accountId, keyId: null, models: ["gpt-4o"], api: "chat" };
  const body = { model: "gpt-4o", messages: [{ role: "system", content: "You are a careful reviewer." }, { role: "user", content: PROMPT }] };

  const results = [
    measure("chat call, 2 KB prompt + 1 KB reply (lookup, input, output, stamp)", () => {
      const guard = guardFor(ctx, call)!;
      mapPrompt("chat", body, (t) => guard.input(t));
      guard.output(REPLY);
      guard.stamp();
    }),
    measure("input only: lookup + 2 KB prompt", () => {
      const guard = guardFor(ctx, call)!;
      mapPrompt("chat", body, (t) => guard.input(t));
    }),
    measure("1 KB streamed reply in 4-character deltas (output window)", () => {
      const guard = guardFor(ctx, call)!;
      const w = guard.outputWindow();
      for (let i = 0; i < REPLY.length; i += 4) w.push(REPLY.slice(i, i + 4));
      w.flush();
    }),
  ];
  ctx.close();
  const info = { ...machineInfo("source tree"), note: "one process; the added work of a guarded call (the upstream call and the meter are the same with or without guardrails)" };
  if (values.json) console.log(JSON.stringify({ machine: info, iterations, results }, null, 2));
  else {
    console.log(`svc guardrails bench: ${info.nproc} CPUs (${info.cpu_model}), bun ${info.bun_version}, ${iterations} iterations`);
    console.log(info.note);
    for (const r of results) console.log(`${r.case.padEnd(70)}  p50 ${String(r.p50_us).padStart(5)} µs  p99 ${String(r.p99_us).padStart(5)} µs`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
