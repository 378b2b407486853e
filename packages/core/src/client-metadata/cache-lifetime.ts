/** Bounds on how long a document is kept, in seconds (the realm's `cache_seconds`). */
export interface CacheBounds {
  min: number;
  max: number;
}

/**
 * How long a document may be kept: what its Cache-Control (RFC 9111 §5.2.2) says — `no-store`
 * and `no-cache` nothing, `max-age` its seconds — within the realm's bounds, and the least of them
 * when it says neither.
 */
export function keptSeconds(cacheControl: string | null, bounds: CacheBounds): number {
  const directives = new Map(
    (cacheControl ?? '').split(',').map((directive) => {
      const [name = '', value] = directive.trim().split('=', 2);
      return [name.toLowerCase(), value?.replace(/^"(.*)"$/, '$1')] as const;
    }),
  );
  let seconds = bounds.min;
  if (directives.has('no-store') || directives.has('no-cache')) seconds = 0;
  else if (/^\d{1,10}$/.test(directives.get('max-age') ?? '')) {
    seconds = Number(directives.get('max-age'));
  }
  return Math.min(bounds.max, Math.max(bounds.min, seconds));
}
