/**
 * When each request arrived (performance.now(), marked by the app's first hook): what the
 * request telemetry measures from, and what a metered call's Server-Timing counts svc's own
 * time from. A WeakMap on the Request, so nothing outlives the request.
 */
const arrivals = new WeakMap<Request, number>();

export function markArrival(request: Request): void {
  arrivals.set(request, performance.now());
}

export function arrivalOf(request: Request): number | undefined {
  return arrivals.get(request);
}
