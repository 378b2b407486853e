import { isIPv6 } from 'node:net';

/** What one host usually has to itself: the IPv6 prefix a throttle counts as one address. */
export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

/**
 * What a throttle counts an address as: an IPv4 address itself (also when IPv4-mapped, in any
 * spelling), an IPv6 address as its network of `prefixLength` bits (`2001:db8:0:1::/64`),
 * anything else as given.
 */
export function addressKey(address: string, prefixLength = DEFAULT_IPV6_PREFIX_LENGTH): string {
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address.split('%', 1)[0] ?? '');
  const [high = 0, low = 0] = groups.slice(6);
  if (groups.slice(0, 6).join(':') === '0:0:0:0:0:65535') {
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  const kept = groups.slice(0, Math.ceil(prefixLength / 16)).map((group, index) => {
    const bits = Math.min(16, prefixLength - index * 16);
    return (group & ~((1 << (16 - bits)) - 1) & 0xffff).toString(16);
  });
  return `${kept.join(':')}${kept.length < 8 ? '::' : ''}/${prefixLength}`;
}

/** The eight 16-bit groups of a valid IPv6 address (no zone). */
function ipv6Groups(address: string): number[] {
  const toGroups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [Number.parseInt(piece, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const first = toGroups(head);
  if (tail === undefined) return first;
  const last = toGroups(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}
