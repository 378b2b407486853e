import type { Server } from 'node:http';

/** Starts `server` listening on an ephemeral port of 127.0.0.1. */
export function listenOnLoopback(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}
