import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A native app's or agent's loopback redirect listener on a port the system picks (RFC 8252
 * §7.3): resolves with the first request's URL, as the app sees it.
 */
export async function loopbackListener(): Promise<{
  port: number;
  received: Promise<URL>;
  server: Server;
}> {
  let deliver: (url: URL) => void = () => {};
  const received = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((request, response) => {
    const { port } = server.address() as AddressInfo;
    deliver(new URL(request.url ?? '/', `http://127.0.0.1:${port}`));
    response.end('You can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, received, server };
}
