import type { RecordKey } from '@gatehouse-oidc/core';

/**
 * Where records live in Redis. Every command and script touches one key, or the two keys of one
 * grant, which share a hash tag, so the layout works on Redis Cluster; docs/storage-and-keys.md
 * explains why a grant's records do not share its slot.
 *
 * - `<prefix>r:<namespace>:<id>`: a record, a hash with fields `v` (JSON), `r` (revision),
 *   `u` (set once consumed) and `g` (grant id, absent without a grant); native expiry.
 * - `<prefix>{g:<grantId>}:index`: a grant's index, a sorted set of members `<namespace>:<id>`
 *   scored by when each member's record expires at the latest (`inf` for never), expiring itself
 *   with its last member.
 * - `<prefix>{g:<grantId>}:revoking`: members taken out of the index by a revokeGrant whose
 *   records are not deleted yet; empty unless a revocation failed half-way.
 * - `<prefix>{c:<capKey>}:members`: the members of a cap of `setCapped`, a sorted set scored by
 *   when each was written (microseconds), expiring with its newest member; a record of
 *   `setCapped` lists its caps in its field `k`.
 * - `<prefix>{g:<grantId>}:closed`: present while the grant is closed after a revocation
 *   (`REVOKED_GRANT_SECONDS`); the index refuses new members meanwhile.
 *
 * The hash tag `{g:<grantId>}` is never empty, and a prefix holds no braces (checked), so the
 * three grant keys always hash to the same slot.
 * The namespace is URI-encoded, so it holds no `:` and the first `:` of a member ends it; the id
 * follows verbatim.
 */
export class KeyLayout {
  readonly #prefix: string;
  readonly #namespaces = new Map<string, string>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** The member naming a record in its grant's index. */
  member(namespace: string, id: string): string {
    let encoded = this.#namespaces.get(namespace);
    if (encoded === undefined) {
      encoded = encodeURIComponent(namespace);
      // The store's callers use a handful of fixed namespaces; the cache never grows past them.
      if (this.#namespaces.size < 256) this.#namespaces.set(namespace, encoded);
    }
    return `${encoded}:${id}`;
  }

  record(namespace: string, id: string): string {
    return this.recordOfMember(this.member(namespace, id));
  }

  recordOfMember(member: string): string {
    return `${this.#prefix}r:${member}`;
  }

  grantIndex(grantId: string): string {
    return `${this.#prefix}{g:${grantId}}:index`;
  }

  grantRevoking(grantId: string): string {
    return `${this.#prefix}{g:${grantId}}:revoking`;
  }

  cap(capKey: string): string {
    return `${this.#prefix}{c:${capKey}}:members`;
  }

  grantClosed(grantId: string): string {
    return `${this.#prefix}{g:${grantId}}:closed`;
  }
}

export function splitMember(member: string): RecordKey {
  const at = member.indexOf(':');
  return { namespace: decodeURIComponent(member.slice(0, at)), id: member.slice(at + 1) };
}
