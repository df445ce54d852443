/**
 * Sandbox runner latency and throughput, in-process (the runner is a library; the HTTP path
 * around it comes later and adds its own cost). For each language: `--runs` sequential
 * one-shot runs of a one-line print, p50/p99. Then runs/s at `--concurrency`. Then a
 * breakdown of where a run's time goes: the program alone on the host, the sandbox around
 * `true`, and the same with and without per-run cgroups.
 *
 *   bun bench/sandbox-runner.ts [--runs 100] [--concurrency 8] [--json]
 *
 * No thresholds; compare figures from the same machine only (see bench/README.md).
 */
import { mkdtempSync, rmSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunner, type Runner, type RunSpec } from "../src/domains/sandboxes/runner/index.ts";
import { log, now, parseFlags, percentile } from "./support.ts";

const { values, fail } = parseFlags(
  {
    runs: { type: "string", default: "100" },
    concurrency: { type: "string", default: "8" },
    "concurrent-runs": { type: "string", default: "160" },
  },
  `usage: bun bench/sandbox-runner.ts [options]
  --runs N              sequential runs per language (default 100)
  --concurrency N       parallel runs for the throughput figure (default 8)
  --concurrent-runs N   total runs for the throughput figure (default 160)`,
);
const runs = Number(values.runs);
const concurrency = Number(values.concurrency);
const concurrentRuns = Number(values["concurrent-runs"]);
if (!(runs >= 1 && concurrency >= 1 && concurrentRuns >= concurrency)) fail("--runs, --concurrency and --concurrent-runs must be positive (concurrent-runs >= concurrency)");

const PROGRAMS: Record<"python" | "javascript" | "bash", string> = {
  python: "print(1)",
  javascript: "console.log(1)",
  bash: "echo 1",
};

interface Figures {
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

function figures(samples: number[]): Figures {
  const sorted = Float64Array.from(samples).sort();
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { p50_ms: r(percentile(sorted, 50)), p99_ms: r(percentile(sorted, 99)), mean_ms: r(mean) };
}

async function timed(runner: Runner, spec: RunSpec, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const r = await runner.run(spec);
    out.push(now() - t0);
    if (r.status !== "ok") throw new Error(`run failed: ${JSON.stringify(r)}`);
  }
  return out;
}

/** The program alone, started by Bun the way the runner starts its sandbox (no sandbox). */
async function bare(cmd: string[], n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const p = Bun.spawn(cmd, { env: {}, stdio: ["ignore", "pipe", "pipe"] });
    await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    out.push(now() - t0);
  }
  return out;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-sandbox-"));
  chmodSync(dir, 0o711);
  const runners: Runner[] = [];
  try {
    const runner = await createRunner({ workspaceRoot: join(dir, "ws"), stagingDir: join(dir, "staging") });
    const plain = await createRunner({ workspaceRoot: join(dir, "ws2"), stagingDir: join(dir, "staging2"), cgroups: "off" });
    runners.push(runner, plain);
    const posture = runner.posture();
    if (!posture.available) throw new Error(`sandboxes unavailable: ${posture.reason}`);
    log(`bwrap ${posture.bwrap_version}; ${posture.cgroups.note}; uid mode ${posture.isolation.uid_mode}`);

    const languages: Record<string, Figures> = {};
    for (const [language, code] of Object.entries(PROGRAMS)) {
      const spec = { language, code } as RunSpec;
      await timed(runner, spec, 5); // warm-up: page cache, first-run costs
      log(`${language}: ${runs} sequential runs`);
      languages[language] = figures(await timed(runner, spec, runs));
    }

    log(`throughput: ${concurrentRuns} python runs at concurrency ${concurrency}`);
    let next = 0;
    const t0 = now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < concurrentRuns) {
          next++;
          const r = await runner.run({ language: "python", code: PROGRAMS.python });
          if (r.status !== "ok") throw new Error(`run failed: ${JSON.stringify(r)}`);
        }
      }),
    );
    const runsPerSec = Math.round((concurrentRuns / ((now() - t0) / 1000)) * 10) / 10;

    // Where the time goes. Interleaved, so drift in the machine's load hits every row alike.
    log("breakdown");
    const n = Math.max(20, Math.min(runs, 60));
    const rows: Record<string, number[]> = {
      "python3 alone (no sandbox)": [],
      "sandbox around `true`, cgroups": [],
      "sandbox around `true`, rlimits only": [],
      "python print, cgroups": [],
      "python print, rlimits only": [],
    };
    const py = posture.languages.find((l) => l.name === "python");
    const hostPython = py?.available ? "/usr/bin/python3" : null;
    for (let i = 0; i < n; i++) {
      if (hostPython) rows["python3 alone (no sandbox)"]!.push(...(await bare([hostPython, "-u", "-B", "-c", "print(1)"], 1)));
      rows["sandbox around `true`, cgroups"]!.push(...(await timed(runner, { command: ["true"] }, 1)));
      rows["sandbox around `true`, rlimits only"]!.push(...(await timed(plain, { command: ["true"] }, 1)));
      rows["python print, cgroups"]!.push(...(await timed(runner, { language: "python", code: "print(1)" }, 1)));
      rows["python print, rlimits only"]!.push(...(await timed(plain, { language: "python", code: "print(1)" }, 1)));
    }
    const breakdown: Record<string, Figures> = {};
    for (const [k, v] of Object.entries(rows)) if (v.length) breakdown[k] = figures(v);

    const result = { runs, concurrency, concurrent_runs: concurrentRuns, cgroups: posture.cgroups.note, languages, runs_per_sec: runsPerSec, breakdown };
    if (values.json) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    console.log(`sandbox runner, in-process (${posture.cgroups.note})`);
    console.log(`one-shot run, ${runs} sequential runs each:`);
    console.log("  language      p50 ms   p99 ms   mean ms");
    for (const [name, f] of Object.entries(languages)) {
      console.log(`  ${name.padEnd(12)} ${String(f.p50_ms).padStart(7)} ${String(f.p99_ms).padStart(8)} ${String(f.mean_ms).padStart(9)}`);
    }
    console.log(`throughput: ${runsPerSec} python runs/s at concurrency ${concurrency}`);
    console.log(`where the time goes (${n} interleaved runs each):`);
    for (const [name, f] of Object.entries(breakdown)) {
      console.log(`  ${name.padEnd(38)} p50 ${String(f.p50_ms).padStart(6)} ms   p99 ${String(f.p99_ms).padStart(6)} ms`);
    }
  } finally {
    for (const r of runners) await r.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
