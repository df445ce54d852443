/**
 * The support program: wallet-pair claims proven by an ed25519 and an EIP-191 signature over one nonce and a finalized transaction (/v1/support/*; docs/support.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
