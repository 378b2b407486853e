import { nowSeconds, type RealmContext } from '../context.js';

/**
 * Records a JWT's `jti` until the JWT expires (plus the clock tolerance it was checked with), in
 * the store every instance shares; false when it was seen before. `scope` keeps one sender's
 * identifiers apart from another's: it is encoded, so `a` with jti `b/c` is not `a/b` with `c`.
 */
export async function firstUseOfJti(
  context: RealmContext,
  namespace: string,
  scope: string,
  jti: string,
  exp: number,
  toleranceSeconds: number,
): Promise<boolean> {
  const ttlSeconds = Math.max(1, exp - nowSeconds(context) + toleranceSeconds);
  const id = `${context.realm.name}/${encodeURIComponent(scope)}/${jti}`;
  return context.store.add(namespace, id, {}, { ttlSeconds });
}
