/**
 * The multi-model judge: verdicts from 1-5 juror models, stored content-free with signed fingerprints.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
