// The outbound address guard shared by everything that connects to URLs a client chose
// (web_fetch, HTTP tools). It refuses every non-public address (private, loopback, link-local,
// unique-local, multicast, unspecified, reserved, …: anything ipaddr.js does not classify as
// `unicast`) unless the deployment allows private addresses (all of them) or loopback ones.
//
// It runs where the connection is made: IP-literal hosts are checked before connecting
// (`checkHostLiteral`), and host names through `guardedLookup`, a `lookup` for the request's
// Agent that checks every address DNS returns at connect time. So a name that resolves to an
// internal address and DNS rebinding are covered too.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  allowPrivate: boolean;
  allowLoopback: boolean;
}

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (`::ffff:a.b.c.d`) and the
 * deprecated IPv4-compatible form (`::a.b.c.d`, which URLs write `::7f00:1` and ipaddr.js calls
 * unicast), but not `::` and `::1` themselves. NAT64, 6to4 and Teredo are non-unicast ranges of
 * their own, refused as such.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const parts = address.parts;
  if (parts.slice(0, 6).every((part) => part === 0) && !(parts[6] === 0 && parts[7]! <= 1)) {
    return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  }
  return null;
}

/** The ipaddr.js range of an address (`unicast` means public); IPv6 carrying an IPv4 address counts as that address. */
export function addressRange(address: string): string {
  const parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (parsed.kind() === 'ipv6') return (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed).range();
  return parsed.range();
}

export function isAddressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy.allowPrivate) return true;
  let range: string;
  try {
    range = addressRange(address);
  } catch {
    return false;
  }
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

export class AddressNotAllowedError extends Error {
  override name = 'AddressNotAllowedError';
  constructor(
    readonly host: string,
    readonly address: string,
    /** Who refuses, for the message: "web_fetch only reaches public addresses". */
    readonly who = 'toolrun',
  ) {
    let range = 'invalid';
    try {
      range = addressRange(address);
    } catch {
      // keep 'invalid'
    }
    // What a name resolves to inside the deployment is not the caller's to learn: only the name is said.
    super(
      host === address
        ? `${address} is a non-public address (${range}); ${who} only reaches public addresses`
        : `${host} resolves to a non-public address; ${who} only reaches public addresses`,
    );
  }
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Throws AddressNotAllowedError when the URL's host is an IP literal the policy refuses. */
export function checkHostLiteral(url: URL, policy: AddressPolicy, who?: string): void {
  const host = hostOf(url);
  if (net.isIP(host) && !isAddressAllowed(host, policy)) throw new AddressNotAllowedError(host, host, who);
}

/** A `lookup` for http(s) Agents that refuses host names resolving to an address the policy refuses. */
export function guardedLookup(policy: AddressPolicy, who?: string): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.find((entry) => !isAddressAllowed(entry.address, policy));
      if (refused) return callback(new AddressNotAllowedError(hostname, refused.address, who), '');
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
