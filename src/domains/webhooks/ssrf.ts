/**
 * The outbound guard: a webhook URL is a request svc makes on a tenant's behalf, from inside the
 * operator's network, so it must not reach what only that network can reach (the loopback
 * admin port, the LAN, the cloud metadata service at 169.254.169.254) unless the operator says
 * so (webhooks.allow_private).
 *
 * The hostname is resolved and EVERY address it resolves to must be public; the request is
 * then made to the address that was checked (the Host header and TLS server name keep the
 * original name), so a DNS answer that changes between the check and the connection (DNS
 * rebinding) cannot slip a private address in. Checked at creation (a clear 400) and again at
 * every delivery, since DNS can change at any time. Redirects are never followed (a public
 * receiver could otherwise bounce us inward); the dispatcher sends with redirect: "manual".
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

/** Why a target was refused; the message is safe to show the tenant (no resolved addresses, no URL). */
export class TargetRefused extends Error {}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface Target {
  /** What to fetch: the URL with its host replaced by the checked address (or as given, when private targets are allowed). */
  url: string;
  /** Host for the request when the URL was pinned to an address. */
  host: string | null;
  /** TLS server name (SNI and certificate check) when an https URL was pinned to an address. */
  serverName: string | null;
}

export const MAX_URL_LENGTH = 2048;

/** Syntax only: http(s), a host, no credentials. Throws TargetRefused. */
export function parseTargetUrl(raw: string): URL {
  if (raw.length > MAX_URL_LENGTH) throw new TargetRefused(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused("is not a valid URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TargetRefused("must be an http:// or https:// URL");
  if (!url.hostname) throw new TargetRefused("must name a host");
  // Credentials in a URL end up in lists and logs; receivers authenticate svc by the signature instead.
  if (url.username || url.password) throw new TargetRefused("must not carry a user name or password");
  return url;
}

/**
 * Checks the URL and decides where to connect. With allowPrivate only the syntax is checked and
 * the URL is used as given (the operator's own network is a legitimate target then).
 */
export async function resolveTarget(raw: string, options: { allowPrivate: boolean; lookup?: Lookup }): Promise<Target> {
  const url = parseTargetUrl(raw);
  if (options.allowPrivate) return { url: url.href, host: null, serverName: null };

  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string; family: number }[];
  if (isIP(hostname)) addresses = [{ address: hostname, family: isIP(hostname) }];
  else {
    try {
      addresses = await (options.lookup ?? systemLookup)(hostname);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new TargetRefused(code === "ENOTFOUND" || code === "ENODATA" ? "host does not resolve" : `host could not be resolved (${code ?? "DNS error"})`);
    }
  }
  if (!addresses.length) throw new TargetRefused("host does not resolve");
  for (const { address } of addresses) {
    const range = blockedRange(address);
    if (range) {
      throw new TargetRefused(
        `${isIP(hostname) ? "is" : "resolves to"} a ${range} address; svc dials only the public internet on a tenant's behalf (an operator may allow private targets: docs/webhooks.md)`,
      );
    }
  }
  const { address, family } = addresses[0]!;
  const pinned = new URL(url.href);
  pinned.hostname = family === 6 ? `[${address}]` : address;
  return { url: pinned.href, host: url.host, serverName: url.protocol === "https:" && !isIP(hostname) ? hostname : null };
}

// ---------------------------------------------------------------------------------------------
// Address classes

type Range = [base: bigint, bits: number, label: string];

function parseV4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

function parseV6(text: string): bigint | null {
  let s = text.replace(/^\[|\]$/g, "").split("%")[0]!.toLowerCase();
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (dotted) {
    const v4 = parseV4(dotted[1]!);
    if (v4 === null) return null;
    s = s.slice(0, -dotted[1]!.length) + `${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return null;
  let n = 0n;
  for (const g of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail]) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

const v4Range = (cidr: string, label: string): Range => {
  const [ip, bits] = cidr.split("/");
  return [BigInt(parseV4(ip!)!), Number(bits), label];
};
const v6Range = (cidr: string, label: string): Range => {
  const [ip, bits] = cidr.split("/");
  return [parseV6(ip!)!, Number(bits), label];
};

// Most specific first: the first match names the class in the refusal.
const V4_BLOCKED: Range[] = [
  v4Range("169.254.169.254/32", "cloud metadata"),
  v4Range("100.100.100.200/32", "cloud metadata"),
  v4Range("0.0.0.0/8", "unspecified"),
  v4Range("10.0.0.0/8", "private"),
  v4Range("100.64.0.0/10", "shared (carrier-grade NAT)"),
  v4Range("127.0.0.0/8", "loopback"),
  v4Range("169.254.0.0/16", "link-local"),
  v4Range("172.16.0.0/12", "private"),
  v4Range("192.0.0.0/24", "reserved"),
  v4Range("192.0.2.0/24", "documentation"),
  v4Range("192.88.99.0/24", "reserved"),
  v4Range("192.168.0.0/16", "private"),
  v4Range("198.18.0.0/15", "benchmarking"),
  v4Range("198.51.100.0/24", "documentation"),
  v4Range("203.0.113.0/24", "documentation"),
  v4Range("224.0.0.0/4", "multicast"),
  v4Range("240.0.0.0/4", "reserved"),
];

const V6_BLOCKED: Range[] = [
  v6Range("::/128", "unspecified"),
  v6Range("::1/128", "loopback"),
  v6Range("64:ff9b:1::/48", "reserved"),
  v6Range("100::/64", "reserved"),
  v6Range("2001::/32", "reserved (Teredo)"),
  v6Range("2001:db8::/32", "documentation"),
  v6Range("3fff::/20", "documentation"),
  v6Range("fc00::/7", "unique-local"),
  v6Range("fe80::/10", "link-local"),
  v6Range("fec0::/10", "site-local"),
  v6Range("ff00::/8", "multicast"),
];

const inRange = (value: bigint, width: number, [base, bits]: Range): boolean => value >> BigInt(width - bits) === base >> BigInt(width - bits);

/** An IPv4 address carried inside an IPv6 one (mapped, compatible, NAT64, 6to4) answers for itself. */
function embeddedV4(v6: bigint): bigint | null {
  const top96 = v6 >> 32n;
  if (top96 === 0xffffn) return v6 & 0xffffffffn; // ::ffff:a.b.c.d (mapped)
  if (top96 === 0n && v6 > 1n) return v6 & 0xffffffffn; // ::a.b.c.d (compatible, deprecated)
  if (top96 === 0x64ff9b0000000000000000n) return v6 & 0xffffffffn; // 64:ff9b::a.b.c.d (NAT64)
  if (v6 >> 112n === 0x2002n) return (v6 >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::/48 (6to4)
  return null;
}

/** The class of a non-public address ("loopback", "private", …), or null for a public one. Unparseable counts as blocked. */
export function blockedRange(address: string): string | null {
  const family = isIP(address.split("%")[0]!);
  if (family === 4) {
    const v4 = BigInt(parseV4(address)!);
    return V4_BLOCKED.find((r) => inRange(v4, 32, r))?.[2] ?? null;
  }
  const v6 = family === 6 ? parseV6(address) : null;
  if (v6 === null) return "unrecognised";
  const inner = embeddedV4(v6);
  if (inner !== null) return V4_BLOCKED.find((r) => inRange(inner, 32, r))?.[2] ?? null;
  return V6_BLOCKED.find((r) => inRange(v6, 128, r))?.[2] ?? null;
}

/**
 * Requests a checked target: the address that was checked, with the URL's own name as the Host
 * header and as the TLS server name (SNI, and the name the certificate must carry), never
 * following a redirect (a redirect could lead anywhere the check did not look).
 */
export function fetchPinned(target: Target, init: { method: "GET" | "POST"; body?: string; headers: Record<string, string>; signal: AbortSignal }): Promise<Response> {
  return fetch(target.url, {
    method: init.method,
    body: init.body,
    headers: target.host ? { ...init.headers, host: target.host } : init.headers,
    redirect: "manual",
    signal: init.signal,
    ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
  });
}

export const postPinned = (target: Target, init: { body: string; headers: Record<string, string>; signal: AbortSignal }): Promise<Response> =>
  fetchPinned(target, { method: "POST", ...init });
