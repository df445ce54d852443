/**
 * The one HTML page every /console path answers with (the app routes in the browser), and the
 * headers every console answer carries.
 *
 * The Content-Security-Policy allows nothing but this origin's own script and stylesheet: no
 * inline script or style, no eval, no other origin, no framing, no plugins. Connections go to
 * this origin only, so a compromised dependency cannot send anything elsewhere. Images: this
 * origin and data: (the QR code is SVG drawn by the app; data: covers the empty favicon).
 */
import type { ConsoleAssets } from "./assets.ts";

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CSP,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

export function shellHtml(assets: ConsoleAssets): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${assets.style.name}">
<script type="module" src="/console/assets/${assets.script.name}"></script>
</head>
<body>
<div id="app"><noscript><p>The svc console needs JavaScript. Everything it shows is also in the HTTP API (docs/routes.md) and the CLI (svc --help).</p></noscript></div>
</body>
</html>
`;
}
