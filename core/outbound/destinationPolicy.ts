import ipaddr from 'ipaddr.js';

/**
 * Destination policy, the SSRF guard (DECISIONS.md "Webhook endpoints"): which URLs and which
 * addresses an outbound request (a webhook, an OAuth metadata document) may be sent to. Pure functions; the DNS lookup is passed in so a check at
 * registration and the check before every attempt run the same rules.
 *
 * Only globally routable unicast addresses pass. An IPv4-mapped or NAT64 IPv6 address is
 * judged by the IPv4 address it carries. `allowedCidrs` (WEBHOOK_ALLOWED_CIDRS) lets tests
 * and local development reach e.g. 127.0.0.0/8; it is empty by default.
 */
export type RefusalReason = 'not_a_url' | 'not_https' | 'credentials_in_url' | 'port_not_allowed' | 'host_not_allowed' | 'address_not_allowed' | 'no_address';

export interface ParsedDestination {
  url: URL;
  /** Host name without brackets or a trailing dot, lower case. */
  host: string;
  port: number;
  /** The address when the host is an IP literal. */
  literal: string | null;
}

export type UrlVerdict = { ok: true; destination: ParsedDestination } | { ok: false; reason: RefusalReason };

const MAX_URL_LENGTH = 2048;

/** Static checks on the URL itself: scheme, credentials, port, IP-literal hosts. */
export function parseDestinationUrl(raw: string, allowedCidrs: readonly string[] = []): UrlVerdict {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH) return { ok: false, reason: 'not_a_url' };
  let url: URL;
  try {
    // The WHATWG parser also normalises decimal, octal and hex IPv4 spellings (0x7f.1 → 127.0.0.1).
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not_a_url' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'not_https' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials_in_url' };
  const port = url.port === '' ? 443 : Number(url.port);
  if (port !== 443 && port < 1024) return { ok: false, reason: 'port_not_allowed' };
  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  while (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return { ok: false, reason: 'host_not_allowed' };
  const literal = ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host)) ? host : null;
  if (!literal && !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(host)) return { ok: false, reason: 'host_not_allowed' };
  if (literal && !isAddressAllowed(literal, allowedCidrs)) return { ok: false, reason: 'address_not_allowed' };
  return { ok: true, destination: { url, host, port, literal } };
}

function embeddedIpv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address();
  const range = addr.range();
  // NAT64 well-known prefix 64:ff9b::/96 carries the IPv4 address in its last 32 bits.
  if (range === 'rfc6052' && addr.parts[2] === 0 && addr.parts[3] === 0 && addr.parts[4] === 0 && addr.parts[5] === 0) {
    const bytes = addr.toByteArray();
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  return null;
}

function inCidrs(addr: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly string[]): boolean {
  for (const cidr of cidrs) {
    try {
      const [net, bits] = ipaddr.parseCIDR(cidr);
      if (net.kind() === addr.kind() && addr.match(net, bits)) return true;
    } catch {
      // A malformed entry matches nothing; config validation reports it at start-up.
    }
  }
  return false;
}

/**
 * IPv6 global unicast is 2000::/3 (RFC 4291); everything outside it (IPv4-compatible ::/96,
 * ULA, link-local, site-local, multicast, discard, …) is not a public destination, whatever
 * ipaddr.js calls its range. Inside it, the IANA special-purpose blocks ipaddr.js names
 * (documentation, benchmarking, ORCHID, Teredo, 6to4, AS112, AMT, segment routing) are refused
 * too: only what ipaddr.js classes as plain `unicast` passes.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/** IPv4 passes only as plain `unicast`: private, loopback, CGNAT, link-local, documentation, benchmarking, reserved, … do not. */
function isPublicV4(addr: ipaddr.IPv4): boolean {
  return addr.range() === 'unicast';
}

function isPublicV6(addr: ipaddr.IPv6): boolean {
  return addr.match(GLOBAL_UNICAST_V6) && addr.range() === 'unicast';
}

/**
 * Whether one resolved or literal address may be connected to: an allowlist (only globally
 * routable unicast passes), so a spelling nobody listed is refused rather than let through.
 * IPv4-mapped and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address they carry;
 * `allowedCidrs` (WEBHOOK_ALLOWED_CIDRS) is the only way past it.
 */
export function isAddressAllowed(address: string, allowedCidrs: readonly string[] = []): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return false;
  }
  if (addr.kind() === 'ipv6' && /%/.test(address)) return false; // zone ids only exist on link-local
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const v4 = embeddedIpv4(v6);
    if (v4) return inCidrs(v4, allowedCidrs) || inCidrs(v6, allowedCidrs) || isPublicV4(v4);
    return inCidrs(v6, allowedCidrs) || isPublicV6(v6);
  }
  return inCidrs(addr, allowedCidrs) || isPublicV4(addr as ipaddr.IPv4);
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (A and AAAA). */
export type LookupAll = (host: string) => Promise<ResolvedAddress[]>;

export type DestinationVerdict =
  { ok: true; destination: ParsedDestination; addresses: ResolvedAddress[]; pinned: ResolvedAddress } | { ok: false; reason: RefusalReason };

/**
 * The full check: static rules, then every DNS answer must be allowed (one bad answer refuses
 * the destination, so a name cannot mix a public and a private address). The first answer is
 * the address to pin for the request.
 */
export async function checkDestination(raw: string, lookupAll: LookupAll, allowedCidrs: readonly string[] = []): Promise<DestinationVerdict> {
  const parsed = parseDestinationUrl(raw, allowedCidrs);
  if (!parsed.ok) return parsed;
  const { destination } = parsed;
  let addresses: ResolvedAddress[];
  if (destination.literal) {
    addresses = [{ address: destination.literal, family: destination.literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await lookupAll(destination.host);
    } catch {
      return { ok: false, reason: 'no_address' };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: 'no_address' };
  if (!addresses.every((a) => isAddressAllowed(a.address, allowedCidrs))) return { ok: false, reason: 'address_not_allowed' };
  return { ok: true, destination, addresses, pinned: addresses[0] };
}

export const REFUSAL_TEXT: Record<RefusalReason, string> = {
  not_a_url: 'The url is not a valid absolute URL.',
  not_https: 'Webhook destinations must use https.',
  credentials_in_url: 'Webhook URLs must not carry credentials.',
  port_not_allowed: 'Ports below 1024 other than 443 are not allowed.',
  host_not_allowed: 'The host name is not allowed.',
  address_not_allowed: 'The destination resolves to an address that is not publicly routable.',
  no_address: 'The host name does not resolve to any address.',
};
