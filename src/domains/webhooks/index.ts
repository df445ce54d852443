/**
 * Outbound webhooks: subscriptions and durable, signed, at-least-once delivery from the outbox (/v1/webhooks; `svc webhooks …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 *
 * The outbound guard (ssrf.ts) is shared: every URL svc dials on a tenant's behalf (a webhook,
 * an MCP server of the gateway, an OAuth client's metadata document) passes it, under the one
 * operator switch webhooks.allow_private (SVC_ALLOW_PRIVATE_WEBHOOKS, --allow-private-webhooks).
 */
export { fetchPinned, type Lookup, MAX_URL_LENGTH, parseTargetUrl, resolveTarget, type Target, TargetRefused } from "./ssrf.ts";
