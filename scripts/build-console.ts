#!/usr/bin/env bun
/**
 * Builds the web console's bundle into dist/console/, where `bun build --compile` (package.json
 * "build") picks the files up and embeds them in the binary (src/domains/console/bundle.ts).
 * Prints the sizes: the page weight budget is in bench/console.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUNDLE_FILES, buildConsoleBundle } from "../src/domains/console/bundle.ts";

const out = join(import.meta.dir, "../dist/console");
mkdirSync(out, { recursive: true });
const bundle = await buildConsoleBundle();
writeFileSync(join(out, BUNDLE_FILES.js), bundle.js);
writeFileSync(join(out, BUNDLE_FILES.css), bundle.css);
const kb = (s: string) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KiB (${(Bun.gzipSync(Buffer.from(s), { level: 9 }).length / 1024).toFixed(1)} KiB gzip)`;
console.log(`console: script ${kb(bundle.js)}, stylesheet ${kb(bundle.css)} → dist/console/`);
