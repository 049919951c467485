import * as ipaddr from 'ipaddr.js';

/**
 * Who registered a destination decides what it may reach:
 * - `api`: anyone with builds:write through the REST API. LAN yes; this host (loopback or any of
 *   its own interface addresses) no.
 * - `operator`: svc.config.json, written by whoever runs the relay. May reach this host (a bot
 *   beside the relay); never a cloud metadata service or a special-purpose range.
 */
export type DestinationPolicy = 'api' | 'operator';

/**
 * Why an address may not be called, as a noun phrase ("a loopback address") that completes
 * "<address> is …"; null when it may be called.
 */
export type AddressRefusal = string | null;

/**
 * Cloud instance-metadata endpoints. Most sit in ranges refused anyway (169.254/16, 192.0.0/24);
 * the others live inside ranges we allow (100.64/10 for Tailscale, fd00::/8 as ULA LAN, an Azure
 * public address), so they are listed by address.
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254', // AWS, GCP, Azure IMDS, OpenStack, DigitalOcean, Oracle
  '169.254.170.2', // AWS ECS task metadata
  '169.254.170.23', // AWS EKS pod identity
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure WireServer
  '192.0.0.192', // Oracle Cloud (classic)
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity over IPv6
]);

/** Host names that are metadata services whatever they resolve to. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

const IPV4_ALLOWED = new Set(['unicast', 'private', 'carrierGradeNat']);
const IPV6_ALLOWED = new Set(['unicast', 'uniqueLocal']);

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  reserved: 'a reserved (special-purpose) address',
  deprecatedSiteLocal: 'a deprecated site-local address',
  discard: 'a discard-only address',
};

/**
 * Classifies one IP address (any textual form ipaddr.js parses) for a destination policy.
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, ::ffff:0:a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32) are judged by the IPv4 address they carry, so
 * `::ffff:a9fe:a9fe` is the metadata service it spells.
 */
export function classifyAddress(
  text: string,
  policy: DestinationPolicy,
  ownAddresses: ReadonlySet<string> = new Set(),
): AddressRefusal {
  const bare = text.replace(/^\[|\]$/g, '');
  if (bare.includes('%')) return 'a scoped (link-local) address';
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const address = ipaddr.parse(bare);
  if (address.kind() === 'ipv6') {
    const embedded = embeddedIpv4(address as ipaddr.IPv6);
    if (embedded === 'refuse') return 'a special-purpose IPv6 address';
    if (embedded.length) {
      for (const inner of embedded) {
        const refusal = classifyAddress(inner.toString(), policy, ownAddresses);
        if (refusal) return `an IPv6 form of ${inner.toString()}, ${refusal}`;
      }
      return null;
    }
  }
  const canonical = address.toString().toLowerCase();
  if (METADATA_ADDRESSES.has(canonical)) return 'a cloud metadata address';
  const range = address.range();
  if (range === 'loopback' && policy === 'operator') return null;
  const allowed = address.kind() === 'ipv4' ? IPV4_ALLOWED : IPV6_ALLOWED;
  if (!allowed.has(range)) return RANGE_NAMES[range] ?? `a special-purpose address (${range})`;
  if (policy === 'api' && ownAddresses.has(canonical)) return "an address of the relay's own host";
  return null;
}

/**
 * The IPv4 addresses an IPv6 address carries (none for a plain IPv6 address), or 'refuse' for
 * transition forms whose embedded address cannot be located reliably.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | 'refuse' {
  const bytes = address.toByteArray();
  const v4 = (from: number, xor = 0) =>
    new ipaddr.IPv4(bytes.slice(from, from + 4).map((b) => b ^ xor));
  switch (address.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return [v4(12)];
    case 'rfc6052': {
      // 64:ff9b::/96 carries the IPv4 in its last 32 bits; the local-use 64:ff9b:1::/48 may put it elsewhere.
      const wellKnown = bytes.slice(4, 12).every((b) => b === 0);
      return wellKnown ? [v4(12)] : 'refuse';
    }
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(2)];
    case 'teredo': // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client address inverted; judge both
      return [v4(4), v4(12, 0xff)];
    default:
      break;
  }
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 §2.5.5.1); ipaddr.js calls these "unicast".
  if (bytes.slice(0, 12).every((b) => b === 0) && !['unspecified', 'loopback'].includes(address.range())) return [v4(12)];
  return [];
}

/**
 * Name-level rules, applied before resolving: metadata names, and `localhost` / `*.localhost`
 * (RFC 6761: always loopback, whatever a resolver says). `name` is lower-case without a trailing dot.
 */
export function classifyHostname(name: string, policy: DestinationPolicy): AddressRefusal {
  if (METADATA_NAMES.has(name)) return 'a cloud metadata host';
  if (policy === 'api' && (name === 'localhost' || name.endsWith('.localhost'))) return 'a loopback host';
  return null;
}
