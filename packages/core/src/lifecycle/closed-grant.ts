/**
 * A code or token was not kept because its grant was revoked (see the Store contract's closed
 * grants). Codes and tokens of a grant are written with `Store.add`: their ids are random, so it
 * writes like `set` would, and also answers false for a closed grant.
 */
export class ClosedGrantError extends Error {
  constructor() {
    super('the grant was revoked');
    this.name = 'ClosedGrantError';
  }
}
