/**
 * Outbound webhooks: subscriptions and durable, signed, at-least-once delivery from the outbox (/v1/webhooks; `svc webhooks …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
