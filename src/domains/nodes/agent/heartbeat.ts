/**
 * The node agent's heartbeat: POST <gateway>/v1/nodes/heartbeat with its node key, at once on
 * start and then every heartbeat_secs the gateway answers (nodes.heartbeat_secs, 60 by default).
 * A failed heartbeat is tried again sooner (a quarter of the interval, 1 to 15 s) so a gateway
 * that restarts sees its nodes back quickly. A key the gateway refuses (401) ends the agent:
 * the node was never enrolled, or its key was replaced, and retrying would not change that.
 *
 * This is the only periodic timer outside the gateway's scheduler: the agent has no database.
 */
import type { Logger } from "../../../core/log.ts";

export interface HeartbeatBody {
  endpoint: string;
  version: string;
  dispatch_secret: string;
  languages: string[];
  capacity: number;
  kinds: string[];
  models: string[];
  sandbox: { available: boolean; reason: string | null };
  posture: unknown;
  bench_ms: number;
}

export interface HeartbeatOptions {
  gateway: string;
  nodeKey: string;
  body: () => HeartbeatBody;
  log: Logger;
  /** Overrides the gateway's interval (tests, and operators who want a node to beat faster). */
  intervalSecs?: number;
  /** The gateway refused the key: the agent should stop. */
  onRefused(message: string): void;
  /** Each heartbeat's outcome (tests wait on it). */
  onBeat?(outcome: { ok: boolean; status: number | null; answer: Record<string, unknown> | null }): void;
}

const REQUEST_TIMEOUT_MS = 10_000;

export class HeartbeatLoop {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private intervalMs: number;

  constructor(private readonly options: HeartbeatOptions) {
    this.intervalMs = (options.intervalSecs ?? 60) * 1000;
  }

  start(): void {
    void this.beat();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Sends one heartbeat now and schedules the next. */
  async beat(): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const { log } = this.options;
    let ok = false;
    let status: number | null = null;
    let answer: Record<string, unknown> | null = null;
    try {
      const res = await fetch(`${this.options.gateway}/v1/nodes/heartbeat`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.options.nodeKey}`, "content-type": "application/json" },
        body: JSON.stringify(this.options.body()),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        redirect: "manual",
      });
      status = res.status;
      const text = await res.text();
      try {
        answer = JSON.parse(text) as Record<string, unknown>;
      } catch {
        answer = null;
      }
      if (res.status === 401) {
        const message = String((answer?.error as { message?: unknown } | undefined)?.message ?? "the gateway refused the node key");
        log.error("the gateway refused this node's key; stopping", { status, message });
        this.stopped = true;
        this.options.onBeat?.({ ok, status, answer });
        this.options.onRefused(message);
        return false;
      }
      if (res.ok && answer) {
        ok = true;
        const secs = answer.heartbeat_secs;
        if (this.options.intervalSecs === undefined && typeof secs === "number" && secs >= 1) this.intervalMs = secs * 1000;
        if (answer.approved !== true) log.info("heartbeat accepted; this node waits for the operator's approval (svc nodes approve)", { node_id: answer.node_id });
        else log.debug("heartbeat accepted", { node_id: answer.node_id, status: answer.status });
      } else {
        log.warn("the gateway did not accept the heartbeat", { status, error: (answer?.error as { type?: unknown } | undefined)?.type ?? text.slice(0, 200) });
      }
    } catch (err) {
      log.warn("heartbeat failed; retrying soon", { error: (err as { code?: string }).code ?? (err as Error).message });
    }
    this.options.onBeat?.({ ok, status, answer });
    if (!this.stopped) {
      const next = ok ? this.intervalMs : Math.min(15_000, Math.max(1000, Math.floor(this.intervalMs / 4)));
      this.timer = setTimeout(() => void this.beat(), next);
    }
    return ok;
  }
}
