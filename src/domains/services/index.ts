/**
 * The paid-services marketplace: services sold per call over x402, paid buyer-to-seller on chain, receipted (/v1/services/*; docs/services.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
