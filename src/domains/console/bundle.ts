/**
 * The console's browser bundle: console/main.tsx (Preact) built by Bun's bundler into one
 * minified script and one stylesheet.
 *
 * Two places it comes from, one format:
 * - the compiled binary: `bun run build` runs scripts/build-console.ts first, which writes the
 *   bundle to dist/console/, and `bun build --compile` embeds those files (Bun.embeddedFiles);
 * - running from source (`bun cli/main.ts serve`, the tests): built in memory from console/ on
 *   first use, so what is served is never a stale build of older sources.
 */
import { join } from "node:path";

export interface ConsoleBundle {
  js: string;
  css: string;
}

/** The names the files carry in dist/console/ and inside the binary (.asset: embedded, never bundled). */
export const BUNDLE_FILES = { js: "console.js.asset", css: "console.css.asset" } as const;

export const CONSOLE_ENTRY = join(import.meta.dir, "../../../console/main.tsx");

/** Builds the bundle from console/ (the source tree must be present). */
export async function buildConsoleBundle(): Promise<ConsoleBundle> {
  const out = await Bun.build({ entrypoints: [CONSOLE_ENTRY], target: "browser", format: "esm", minify: true, define: { "process.env.NODE_ENV": '"production"' } });
  if (!out.success) throw new Error(`console bundle failed: ${out.logs.map((l) => l.message).join("; ")}`);
  const js = out.outputs.find((o) => o.kind === "entry-point");
  const css = out.outputs.find((o) => o.path.endsWith(".css"));
  if (!js) throw new Error("console bundle produced no script");
  return { js: await js.text(), css: css ? await css.text() : "" };
}

/** The bundle embedded in this binary, or null when running from source. */
async function embeddedBundle(): Promise<ConsoleBundle | null> {
  const named = (name: string) => Bun.embeddedFiles.find((f) => (f as Blob & { name?: string }).name === name);
  const js = named(BUNDLE_FILES.js);
  const css = named(BUNDLE_FILES.css);
  if (!js || !css) return null;
  return { js: await js.text(), css: await css.text() };
}

export async function loadConsoleBundle(): Promise<ConsoleBundle> {
  return (await embeddedBundle()) ?? (await buildConsoleBundle());
}
