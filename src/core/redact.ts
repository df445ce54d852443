/**
 * Secret and PII shapes in text, found and redacted: the one redactor behind svc_scrub
 * (inference/scrub.ts walks a prompt with it) and the guardrails' pii and secrets detectors.
 *
 * Why regexes of our own: no well-kept JavaScript library covers both credential formats and
 * PII with checksums (secretlint and gitleaks-style rule sets cover keys only and are built for
 * files; the PII packages are unmaintained or call a cloud API, which would send the prompt
 * somewhere else — the opposite of the point). Each shape below is small, anchored, and — for
 * card numbers and IBANs — checked with its checksum, so random digits are not taken for one.
 * What it cannot know it does not guess: a bare 40-character secret, a name or an address is
 * left alone. This is a safety net, not a guarantee; docs/inference.md says so.
 *
 * Each match becomes `[REDACTED:<kind>]`. Rules run in the order listed (the most specific
 * first), so a JWT is not half-eaten by the generic key rule, and a redaction marker is never
 * matched again (it holds no digits and no @).
 */

interface Rule {
  kind: ShapeKind;
  pattern: RegExp;
  /** Capture group 1, when present, is a label kept in front of the redaction (e.g. "Bearer "). */
  keepsPrefix?: boolean;
  /** A checksum or length check a match must pass to count. */
  valid?: (match: string) => boolean;
}

const digitsOf = (s: string) => s.replace(/\D/g, "");

/** Luhn (ISO/IEC 7812) over 13-19 digits: every payment card number satisfies it. */
export function luhnValid(text: string): boolean {
  const digits = digitsOf(text);
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616 mod-97 check: the country and check digits move to the end, letters become 10-35, the number mod 97 is 1. */
export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rest = (rest * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rest === 1;
}

const RULES: Rule[] = [
  // PEM private keys (PKCS#1/#8, EC, OpenSSH, PGP), to the END line — or to the end of the text when cut off.
  { kind: "private_key", pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  // JSON Web Tokens: two base64url JSON segments (both start with eyJ, i.e. '{"') and a signature.
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g },
  // sk-/rk-/pk- keys: OpenAI (sk-proj-…), Anthropic (sk-ant-…), Stripe (sk_live_…), svc's own (sk-svc_…). At least one digit, so prose like "sk-learn-compatible" is left alone.
  { kind: "api_key", pattern: /\b(?:sk|rk|pk)[-_](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/g },
  // AWS access key ids, and a secret access key where it is named.
  { kind: "api_key", pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/g },
  { kind: "api_key", pattern: /(aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}/gi, keepsPrefix: true },
  // GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), GitLab, Slack, Google, Hugging Face, npm.
  { kind: "api_key", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g },
  { kind: "api_key", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: "api_key", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "api_key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "api_key", pattern: /\bhf_[A-Za-z0-9]{30,}/g },
  { kind: "api_key", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  // Bearer tokens, and values assigned to a name that says secret (api_key=…, "password": "…").
  { kind: "api_key", pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{20,}/g, keepsPrefix: true },
  { kind: "secret", pattern: /\b((?:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token|token)["']?\s*[:=]\s*["']?)[^\s"',;[\]]{8,}/gi, keepsPrefix: true },
  // An Ethereum-style private key: 0x and 64 hex digits (a transaction hash has the same shape and is redacted too).
  { kind: "private_key", pattern: /\b0x[0-9a-fA-F]{64}\b/g },
  { kind: "email", pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g },
  // IBAN: country, check digits, then groups of four (spaced or not), checked mod 97.
  { kind: "iban", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g, valid: ibanValid },
  // Payment cards: 13-19 digits, single spaces or dashes between, Luhn-checked.
  { kind: "card_number", pattern: /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g, valid: luhnValid },
  // Phone numbers: international (+CC …, 8-15 digits) or North American (415) 555-2671 / 415-555-2671.
  { kind: "phone", pattern: /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?!\w)/g, valid: (m) => digitsOf(m).length >= 8 && digitsOf(m).length <= 15 },
  { kind: "phone", pattern: /(?<!\w)\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?!\w)/g },
];

/** The kinds of shape, by family: the guardrails' `pii` and `secrets` detectors each take one family (or some of its kinds). */
export const SHAPE_FAMILIES = {
  secrets: ["private_key", "jwt", "api_key", "secret"],
  pii: ["email", "iban", "card_number", "phone"],
} as const;

export type ShapeKind = (typeof SHAPE_FAMILIES)[keyof typeof SHAPE_FAMILIES][number];

export interface Redacted {
  text: string;
  /** Redactions made, all kinds together. */
  count: number;
  /** Redactions made, by kind (only kinds that matched). */
  kinds: Partial<Record<ShapeKind, number>>;
}

/** Redacts the shapes of `only` (every kind when absent) in one string. */
export function redactShapes(text: string, only?: ReadonlySet<string>): Redacted {
  let count = 0;
  const kinds: Partial<Record<ShapeKind, number>> = {};
  let out = text;
  for (const rule of RULES) {
    if (only && !only.has(rule.kind)) continue;
    out = out.replace(rule.pattern, (match: string, prefix?: unknown) => {
      if (rule.valid && !rule.valid(match)) return match;
      count++;
      kinds[rule.kind] = (kinds[rule.kind] ?? 0) + 1;
      const keep = rule.keepsPrefix && typeof prefix === "string" ? prefix : "";
      return `${keep}[REDACTED:${rule.kind}]`;
    });
  }
  return { text: out, count, kinds };
}


export interface Span {
  start: number;
  end: number;
}

/**
 * Where the shapes of `only` are in the text, as found on the text as given (a rule's
 * keepsPrefix label is outside its span). For a caller that must know where a match lies
 * before cutting the text (a stream redacted as it passes), not for redacting: redactShapes is.
 */
export function shapeSpans(text: string, only?: ReadonlySet<string>): Span[] {
  const spans: Span[] = [];
  for (const rule of RULES) {
    if (only && !only.has(rule.kind)) continue;
    for (const m of text.matchAll(rule.pattern)) {
      if (rule.valid && !rule.valid(m[0])) continue;
      const keep = rule.keepsPrefix && typeof m[1] === "string" ? m[1].length : 0;
      spans.push({ start: m.index + keep, end: m.index + m[0].length });
    }
  }
  return spans;
}
