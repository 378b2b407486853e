import { connect } from 'node:net';

/**
 * External services some suites run against (the PostgreSQL and Redis stores). On a machine
 * without them those suites are skipped with one loud line saying how to run them; under
 * `CI=true`, or when the service's variable names a URL explicitly, absence fails the run instead,
 * so CI can never pass by skipping.
 */
export interface Service {
  /** Shown in the skip line: `PostgreSQL`. */
  name: string;
  /** The environment variable that overrides `defaultUrl`. */
  envVar: string;
  defaultUrl: string;
  /** The port when the URL names none. */
  defaultPort: number;
}

export const POSTGRES: Service = {
  name: 'PostgreSQL',
  envVar: 'GATEHOUSE_TEST_POSTGRES_URL',
  defaultUrl: 'postgres://postgres@127.0.0.1:5432/test',
  defaultPort: 5432,
};

export const REDIS: Service = {
  name: 'Redis',
  envVar: 'GATEHOUSE_TEST_REDIS_URL',
  defaultUrl: 'redis://127.0.0.1:6379',
  defaultPort: 6379,
};

/** Whether something accepts TCP connections at the URL's host and port within `timeoutMs`. */
export function serviceAvailable(
  url: string,
  defaultPort: number,
  timeoutMs = 1_000,
): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname.replace(/^\[(.*)\]$/, '$1'),
      port: port === '' ? defaultPort : Number(port),
    });
    const done = (available: boolean) => {
      socket.destroy();
      resolve(available);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const probes = new Map<Service, Promise<string | undefined>>();

/**
 * The URL of `service` for this test file, or undefined when it is absent and its suites are to be
 * skipped (after one loud line). Throws when absence must fail: under `CI=true` or when the URL
 * came from the environment. Probed once per file, however many suites ask.
 */
export function serviceUrl(service: Service): Promise<string | undefined> {
  let probe = probes.get(service);
  if (!probe) {
    probe = probeService(service);
    probes.set(service, probe);
  }
  return probe;
}

async function probeService(service: Service): Promise<string | undefined> {
  const configured = process.env[service.envVar];
  const url = configured || service.defaultUrl;
  if (await serviceAvailable(url, service.defaultPort)) return url;
  // Host and port only: a configured URL may carry a password.
  const { hostname, port } = new URL(url);
  const where = `${hostname}:${port || service.defaultPort}`;
  if (configured || process.env.CI === 'true') {
    throw new Error(
      `${service.name} is required but nothing answers at ${where}` +
        (configured ? ` (${service.envVar})` : ' (CI=true)'),
    );
  }
  console.warn(
    `\n!!! ${service.name} tests SKIPPED: nothing answers at ${where}. Start ${service.name} there or set ${service.envVar} to run them (under CI=true this fails).\n`,
  );
  return undefined;
}
