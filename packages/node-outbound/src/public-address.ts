import { createRequire } from 'node:module';

// ipaddr.js is CommonJS whose one export Node.js gives an ES module as `default` alone.
const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof import('ipaddr.js');

/**
 * Whether an IP address is public unicast: not loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, unspecified, reserved or documentation, nor an IPv6 form that
 * embeds an IPv4 address (mapped, 6to4, Teredo, NAT64), whose IPv4 part could be any of those.
 * An IPv4-mapped IPv6 address is judged as its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}
