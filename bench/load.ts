/**
 * The two load generators the HTTP benches share: wrk (preferred; a separate process, so the
 * bench process's own event loop is not measured) and keep-alive fetch loops in this process
 * (where wrk is not installed). Both report the same figures.
 */
import { percentile, round3 } from "./support.ts";

export interface Measured {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  socketErrors: number;
}

/** What one load run measured, as the benches' tables and JSON print it. */
export interface RunFigures {
  concurrency: number;
  requests: number;
  requests_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  /** non-2xx answers + socket errors (with wrk, a socket error includes a request not answered within its 2 s timeout). */
  errors: number;
}

export const runFigures = (concurrency: number, m: Measured): RunFigures => ({
  concurrency,
  requests: m.requests,
  requests_per_sec: Math.round(m.rps),
  p50_ms: round3(m.p50),
  p99_ms: round3(m.p99),
  errors: m.non2xx + m.socketErrors,
});

/** One run of a direct-vs-gateway bench. */
export interface LoadRow extends RunFigures {
  target: "direct" | "gateway";
}

export const loadRow = (target: LoadRow["target"], concurrency: number, m: Measured): LoadRow => ({ target, ...runFigures(concurrency, m) });

let activeWrk: ReturnType<typeof Bun.spawn> | null = null;

/** Stops a running wrk (the benches' interrupt handler), so nothing outlives the bench. */
export function stopWrk(): void {
  activeWrk?.kill("SIGTERM");
}

/** "512.34us" / "1.50ms" / "2.00s" / "1.00m" → milliseconds. */
function wrkTimeMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!m) return Number.NaN;
  const scale: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Number(m[1]) * scale[m[2]!]!;
}

function parseWrk(out: string): Measured {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const p = (pct: string) => {
    const m = new RegExp(`^\\s*${pct}%\\s+(\\S+)`, "m").exec(out);
    return m ? wrkTimeMs(m[1]!) : Number.NaN;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const requests = num(/(\d+) requests in/);
  const rps = num(/Requests\/sec:\s+([\d.]+)/);
  if (!requests || !rps) throw new Error(`could not parse wrk output:\n${out}`);
  return { requests, rps, p50: p("50"), p99: p("99"), non2xx: num(/Non-2xx or 3xx responses: (\d+)/), socketErrors: socket ? socket.slice(1, 5).reduce((a, b) => a + Number(b), 0) : 0 };
}

/** wrk with --latency; `script` is a Lua file (e.g. a POST body) or none for plain GETs. */
export async function runWrk(url: string, concurrency: number, secs: number, script?: string): Promise<Measured> {
  const threads = Math.min(2, concurrency);
  const args = ["wrk", `-t${threads}`, `-c${concurrency}`, `-d${secs}s`, "--latency", ...(script ? ["-s", script] : []), url];
  const proc = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  activeWrk = proc;
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  activeWrk = null;
  if (code !== 0) throw new Error(`wrk exited with code ${code}:\n${stdout}${stderr}`);
  return parseWrk(stdout);
}

/** `concurrency` keep-alive fetch loops for `secs` seconds; latencies in ms. */
export async function runFetchLoops(send: () => Promise<Response>, concurrency: number, secs: number): Promise<Measured> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let non2xx = 0;
  let socketErrors = 0;
  const start = performance.now();
  const deadline = start + secs * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await send();
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) non2xx++;
      } catch {
        socketErrors++;
        continue;
      }
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const sorted = latencies.subarray(0, count).sort();
  return { requests: count, rps: count / ((performance.now() - start) / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), non2xx, socketErrors };
}
