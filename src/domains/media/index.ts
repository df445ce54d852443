/**
 * Media: image and video generation through the media provider kinds (openai-images,
 * openai-videos), every asset leaving svc with an embedded, signed C2PA manifest, and the
 * public provenance check (/v1/images/*, /v1/videos/*, /.well-known/c2pa/chain.pem).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** Creates the C2PA signing chain in a data dir when it has none (svc setup). */
export { ensureCredential as ensureProvenanceCredential } from "./provenance/credentials.ts";
