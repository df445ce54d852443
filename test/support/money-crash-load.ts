/**
 * The two halves of test/core/money-crash.test.ts that are not svc: a stand-in OpenAI upstream
 * with fixed usage (a short delay per answer, so a kill finds calls in flight), and a load of
 * concurrent fetch loops that follows svc from one process to the next across kill -9s.
 *
 * The load is driven in phases: the test opens a phase on a running server with a request
 * budget, closes it before the kill (so no request starts against a dead server and every
 * transport error is a request that was in flight at a kill), and opens the next one on the
 * restarted server. Every answer is classified; every 200 keeps the receipt id and the cost the
 * client was told, for the test to find in the database afterwards.
 */

/** What the stub bills, per path: the two settle paths leave different costs, so they can be told apart. */
export const USAGE = {
  json: { prompt_tokens: 14, completion_tokens: 19, total_tokens: 33 },
  stream: { prompt_tokens: 14, completion_tokens: 21, total_tokens: 35 },
} as const;

const JSON_DELAY_MS = 8;
const CHUNK_DELAY_MS = 3;

function chunk(delta: Record<string, unknown>, finish: string | null): string {
  const body = { id: "chatcmpl-crash", object: "chat.completion.chunk", created: 1_763_751_600, model: "stub-model", choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

const STREAM_FRAMES = [
  chunk({ role: "assistant", content: "" }, null),
  chunk({ content: "Money " }, null),
  chunk({ content: "survives " }, null),
  chunk({ content: "crashes." }, null),
  chunk({}, "stop"),
  `data: ${JSON.stringify({ id: "chatcmpl-crash", object: "chat.completion.chunk", created: 1_763_751_600, model: "stub-model", choices: [], usage: USAGE.stream })}\n\n`,
  "data: [DONE]\n\n",
];

const REPLY = JSON.stringify({
  id: "chatcmpl-crash",
  object: "chat.completion",
  created: 1_763_751_600,
  model: "stub-model",
  choices: [{ index: 0, message: { role: "assistant", content: "Money survives crashes.", refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: USAGE.json,
});

/**
 * POST /v1/chat/completions: the fixed reply, or (stream: true) the same text as SSE with the
 * usage chunk include_usage asks for. `jsonDelayMs`: how long a non-streamed answer takes.
 */
export function startStubUpstream(options: { jsonDelayMs?: number } = {}): { url: string; calls: () => number; stop: () => void } {
  let calls = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      calls++;
      const body = (await req.json()) as { stream?: boolean };
      if (body.stream !== true) {
        await Bun.sleep(options.jsonDelayMs ?? JSON_DELAY_MS);
        return new Response(REPLY, { headers: { "content-type": "application/json" } });
      }
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await Bun.sleep(CHUNK_DELAY_MS);
          controller.enqueue(new TextEncoder().encode(STREAM_FRAMES[i++]!));
          if (i === STREAM_FRAMES.length) controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, calls: () => calls, stop: () => server.stop(true) };
}

export interface Answered {
  receiptId: string;
  /** The cost the client was told: x-svc-cost-micro-usd, or the stream's receipt comment. */
  cost: number;
  stream: boolean;
}

export interface Tally {
  sent: number;
  ok: number;
  okStream: number;
  insufficient: number;
  /** Transport errors and streams cut before their end: requests in flight at a kill. */
  errors: number;
  /** Anything else (another status, a 200 without its receipt, a 402 of another type), with what it was. */
  unexpected: string[];
  answered: Answered[];
}

interface Phase {
  url: string;
  remaining: number;
  final: boolean;
  /** Called when the last request of the budget has started (its answers are still to come). */
  dispatched: () => void;
}

const STREAM_EVERY = 4;
const REQUEST_TIMEOUT_MS = 20_000;

const RECEIPT_COMMENT = /^: svc\.receipt (\{.*\})$/m;

/**
 * `concurrency` fetch loops, each idle until the test opens a phase. The test calls open() with
 * a server and a budget, close() before it kills that server, and finish() for the last phase:
 * the loops return once its budget is spent and their last answers are in.
 */
export class Load {
  readonly tally: Tally = { sent: 0, ok: 0, okStream: 0, insufficient: 0, errors: 0, unexpected: [], answered: [] };
  private phase: Phase | null = null;
  private wake: () => void = () => {};
  private changed: Promise<void> = this.nextChange();
  private readonly loops: Promise<void>[];
  private inFlight = 0;

  constructor(
    private readonly key: string,
    private readonly model: string,
    concurrency: number,
  ) {
    this.loops = Array.from({ length: concurrency }, () => this.loop());
  }

  /** Requests this load has started and not yet seen the end of. */
  get pending(): number {
    return this.inFlight;
  }

  /** Opens a phase; resolves once its whole budget has been sent (the last requests still in flight). */
  open(baseUrl: string, budget: number): Promise<void> {
    return new Promise<void>((dispatched) => this.set({ url: `${baseUrl}/v1/chat/completions`, remaining: budget, final: false, dispatched }));
  }

  close(): void {
    this.set(null);
  }

  /** Opens the last phase and resolves when its budget is spent and every answer is in. */
  async finish(baseUrl: string, budget: number): Promise<void> {
    this.set({ url: `${baseUrl}/v1/chat/completions`, remaining: budget, final: true, dispatched: () => {} });
    await Promise.all(this.loops);
  }

  private nextChange(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve));
  }

  private set(phase: Phase | null): void {
    this.phase = phase;
    const wake = this.wake;
    this.changed = this.nextChange();
    wake();
  }

  private async loop(): Promise<void> {
    // Bounded: every pass either spends one request of a finite budget or waits for the test's next open/close/finish.
    for (;;) {
      const phase = this.phase;
      if (!phase || phase.remaining <= 0) {
        if (phase?.final) return;
        await this.changed;
        continue;
      }
      if (--phase.remaining === 0) phase.dispatched();
      const n = ++this.tally.sent;
      this.inFlight++;
      try {
        await this.one(phase.url, n % STREAM_EVERY === 0);
      } finally {
        this.inFlight--;
      }
    }
  }

  private async one(url: string, stream: boolean): Promise<void> {
    const t = this.tally;
    const body = JSON.stringify({ model: this.model, messages: [{ role: "user", content: "Say something short about crashes." }], max_tokens: 24, ...(stream ? { stream: true } : {}) });
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${this.key}` }, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      text = await res.text();
    } catch {
      t.errors++;
      return;
    }
    if (res.status === 402) {
      const type = (JSON.parse(text) as { error?: { type?: string } }).error?.type;
      if (type === "insufficient_credit") t.insufficient++;
      else t.unexpected.push(`402 ${type}`);
      return;
    }
    if (res.status !== 200) {
      t.unexpected.push(`${res.status} ${text.slice(0, 200)}`);
      return;
    }
    if (!stream) {
      const receiptId = res.headers.get("x-svc-receipt-id");
      const cost = Number(res.headers.get("x-svc-cost-micro-usd"));
      if (!receiptId) t.unexpected.push("200 without x-svc-receipt-id");
      else t.answered.push({ receiptId, cost, stream });
      t.ok++;
      return;
    }
    const found = RECEIPT_COMMENT.exec(text);
    if (!text.endsWith("data: [DONE]\n\n")) {
      // The headers left before the kill, the end of the stream never did: in flight at a kill.
      t.errors++;
      return;
    }
    if (!found) {
      t.unexpected.push("a complete stream without its svc.receipt comment");
      return;
    }
    const receipt = JSON.parse(found[1]!) as { receipt_id: string | null; cost_micro_usd: number };
    if (!receipt.receipt_id) t.unexpected.push("a stream receipt comment without receipt_id");
    else t.answered.push({ receiptId: receipt.receipt_id, cost: receipt.cost_micro_usd, stream });
    t.ok++;
    t.okStream++;
  }
}
