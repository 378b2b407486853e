import {
  lookup as dnsLookup,
  type LookupAddress,
  type LookupAllOptions,
  type LookupOptions,
} from 'node:dns';
import { OutboundError } from '@gatehouse-oidc/core';
import { isPublicAddress } from './public-address.js';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** `dns.lookup`'s shape for every address of a name. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for the sockets of outside URLs: the name is resolved as usual, and refused when any
 * of its addresses is not public, so the address the socket then connects to is one that was
 * checked (no second resolution a rebinding DNS server could answer differently).
 */
export function publicOnlyLookup(resolveAll: ResolveAll = dnsLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
    resolveAll(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0 || !addresses.every(({ address }) => isPublicAddress(address))) {
        const refused = new OutboundError(
          'refused_address',
          `${hostname} resolves to an address that is not public`,
        );
        return callback(refused as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  };
}
