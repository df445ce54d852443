/**
 * Process telemetry for /metrics (Prometheus). Aggregate only: labels are route templates and
 * status codes, never ids, accounts or anything a request carried.
 */
import { Counter, Histogram, Registry } from "prom-client";

export class Telemetry {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly duration: Histogram<"method" | "route">;

  constructor() {
    this.requests = new Counter({
      name: "svc_http_requests_total",
      help: "HTTP requests answered, by method, route template and status code.",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "Time from request received to response produced, by route template.",
      labelNames: ["method", "route"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
      registers: [this.registry],
    });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.duration.observe({ method, route }, seconds);
  }
}
