/**
 * Files: JSONL uploads for a purpose, sealed at rest with a hard expiry, and output files that
 * other areas write line by line and publish.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { type LineChecker, LineError, registerUploadPurpose, type UploadPurpose } from "./purposes.ts";
export { fileLines, inputFile, publishOutputFile, purgeFileContent, writeOutputLine } from "./service.ts";
