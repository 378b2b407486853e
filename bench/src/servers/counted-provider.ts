import type { Provider } from '@gatehouse-oidc/core';

/**
 * A provider whose `handle` counts the requests it answered and knows when none is in flight, so
 * that store operations can be divided by exactly the requests that made them: a count taken
 * once the server is idle includes every operation of every request it counts.
 */
export function countedProvider(provider: Provider) {
  let inFlight = 0;
  let answered = 0;
  const idle: Array<() => void> = [];
  const counted: Provider = {
    ...provider,
    async handle(request) {
      inFlight++;
      try {
        return await provider.handle(request);
      } finally {
        inFlight--;
        answered++;
        if (inFlight === 0) for (const resolve of idle.splice(0)) resolve();
      }
    },
  };
  return {
    provider: counted,
    /** Requests answered so far. */
    answered: () => answered,
    /** Resolves once no request is in flight (at once if none is). */
    idle(): Promise<void> {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}
