/**
 * The console's static files as served: content-hashed names (so a browser may cache them for
 * a year and a new build is fetched at once), gzip done once at load rather than per request.
 */
import { createHash } from "node:crypto";
import { type ConsoleBundle, loadConsoleBundle } from "./bundle.ts";

export interface Asset {
  name: string;
  type: string;
  body: Uint8Array;
  gzip: Uint8Array;
}

export interface ConsoleAssets {
  script: Asset;
  style: Asset;
  byName: Map<string, Asset>;
}

const encoder = new TextEncoder();

function asset(base: string, ext: string, type: string, text: string): Asset {
  const body = encoder.encode(text);
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { name: `${base}.${hash}.${ext}`, type, body, gzip: Bun.gzipSync(body, { level: 9 }) };
}

export function assetsOf(bundle: ConsoleBundle): ConsoleAssets {
  const script = asset("console", "js", "text/javascript; charset=utf-8", bundle.js);
  const style = asset("console", "css", "text/css; charset=utf-8", bundle.css);
  return { script, style, byName: new Map([script, style].map((a) => [a.name, a])) };
}

let loading: Promise<ConsoleAssets> | null = null;

/** Loaded once per process (a failed build is retried on the next request). */
export function consoleAssets(): Promise<ConsoleAssets> {
  loading ??= loadConsoleBundle().then(assetsOf, (err) => {
    loading = null;
    throw err;
  });
  return loading;
}
