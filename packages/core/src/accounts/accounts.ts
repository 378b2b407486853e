/**
 * The host application's user store, as Gatehouse sees it. Gatehouse never stores users: it asks
 * this adapter for a subject's claims whenever it builds an ID token, a userinfo or an
 * introspection response, and releases only those the granted scopes allow (see claims.ts).
 */
export interface Accounts {
  /**
   * The account of `sub` in `realm`, or undefined when it no longer exists (its tokens then stop
   * working at userinfo). Throw only for infrastructure failures.
   */
  findAccount(realm: string, sub: string): Promise<Account | undefined>;
}

export interface Account {
  sub: string;
  /** Every OpenID claim the host holds for this user (`name`, `email`, `address`…). */
  claims: Readonly<Record<string, unknown>>;
}

/** For deployments without signed-in users (client credentials only): accounts with no claims. */
export const claimlessAccounts: Accounts = {
  findAccount: async (_realm, sub) => ({ sub, claims: {} }),
};
