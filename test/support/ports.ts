import { type AddressInfo, createServer } from 'node:net';

/** A loopback port free right now, so a base URL can name it before the server listens on it. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

/** `count` different loopback ports free right now: each is held until all are found. */
export async function freePorts(count: number): Promise<number[]> {
  const probes = await Promise.all(
    Array.from({ length: count }, async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      return probe;
    }),
  );
  const ports = probes.map((probe) => (probe.address() as AddressInfo).port);
  await Promise.all(probes.map((probe) => new Promise((resolve) => probe.close(resolve))));
  return ports;
}
