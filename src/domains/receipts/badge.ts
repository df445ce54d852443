/**
 * The SVG badge of a shared receipt (GET /v1/receipts/:id/badge.svg): "svc receipt | <kind> ·
 * verified · $0.75", in the flat style READMEs already show for CI and coverage. "verified" is
 * drawn only when the stored receipt verifies again against the signer list at drawing time;
 * otherwise the badge says "unverified" in red rather than vouch for it.
 *
 * Every piece of text is XML-escaped: kinds come from code today, but a badge is embedded in
 * other people's pages and must never become markup.
 */
import { formatUsd } from "../../core/money.ts";

export interface BadgeInput {
  kind: string;
  verified: boolean;
  costMicroUsd: number;
}

const LABEL = "svc receipt";
const MAX_KIND_CHARS = 40;
/** Verdana 11px averages about 7 px per character; generous enough that text never overflows. */
const CHAR_PX = 7;
const PAD_PX = 10;

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Characters a reader sees (code points), so widths do not double for astral characters. */
const visibleLength = (text: string) => Array.from(text).length;

export function renderBadge(input: BadgeInput): string {
  // Control characters are not allowed in XML 1.0 at all; a kind never has them, but the badge must stay well-formed.
  const cleanKind = input.kind.replace(/[\u0000-\u001f\u007f]/g, " ");
  const kind = visibleLength(cleanKind) > MAX_KIND_CHARS ? Array.from(cleanKind).slice(0, MAX_KIND_CHARS - 1).join("") + "…" : cleanKind;
  const value = `${kind} · ${input.verified ? "verified" : "unverified"} · ${formatUsd(input.costMicroUsd)}`;
  const left = visibleLength(LABEL) * CHAR_PX + PAD_PX * 2;
  const right = visibleLength(value) * CHAR_PX + PAD_PX * 2;
  const width = left + right;
  const color = input.verified ? "#2e7d32" : "#c62828";
  const title = escapeXml(`${LABEL}: ${value}`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`,
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${color}"/><rect width="${width}" height="20" fill="url(#s)"/></g>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${left / 2}" y="14">${escapeXml(LABEL)}</text>`,
    `<text x="${left + right / 2}" y="14">${escapeXml(value)}</text>`,
    `</g></svg>`,
  ].join("");
}
