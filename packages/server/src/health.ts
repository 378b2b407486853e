import type { Store } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync } from 'fastify';

export interface HealthOptions {
  store: Store;
  /** How long the store may take to answer its ping before the server reports itself down. */
  timeoutMs: number;
}

/** `GET /healthz`: 200 `{"status":"ok"}` when the store answers in time, 503 otherwise. */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (
  app,
  { store, timeoutMs },
) => {
  app.get('/healthz', async (_request, reply) => {
    const up = await answersWithin(() => store.ping(), timeoutMs);
    return reply
      .code(up ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: up ? 'ok' : 'unavailable' });
  });
};

async function answersWithin(ping: () => Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
  });
  const answer = Promise.resolve()
    .then(ping)
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
