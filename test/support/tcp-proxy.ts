import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real service, for failure tests: `freeze` makes the service
 * look hung (connections stay open, nothing passes), `refuse` makes it look down (connections
 * are cut and new ones refused), `restore` brings it back.
 */
export interface TcpProxy {
  readonly port: number;
  /** Stops forwarding in both directions on every connection, and accepts new ones without forwarding. */
  freeze(): void;
  /** Cuts every connection and closes new ones at once. */
  refuse(): void;
  /** Forwards again; frozen connections are cut, as a real network partition would leave them. */
  restore(): void;
  close(): Promise<void>;
}

type Mode = 'forward' | 'freeze' | 'refuse';

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: Mode = 'forward';
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const cutAll = () => {
    for (const socket of open) socket.destroy();
  };

  const server = createServer((client) => {
    track(client);
    if (mode === 'refuse') return client.destroy();
    if (mode === 'freeze') return client.pause();
    const upstream = connect(target);
    track(upstream);
    // What arrives while frozen is dropped: restore cuts those connections, as broken as after a partition.
    client.on('data', (chunk) => mode === 'forward' && upstream.write(chunk));
    upstream.on('data', (chunk) => mode === 'forward' && client.write(chunk));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      mode = 'freeze';
    },
    refuse: () => {
      mode = 'refuse';
      cutAll();
    },
    restore: () => {
      if (mode === 'freeze') cutAll();
      mode = 'forward';
    },
    close: async () => {
      cutAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
