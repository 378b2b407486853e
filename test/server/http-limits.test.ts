import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliProcess, configDir, killAllCli, runCli, validConfig, withChanges } from './support.js';

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

const DISCOVERY = '/oauth/demo/.well-known/openid-configuration';

/** A raw connection to the server, with everything it received and whether it was closed. */
function rawConnection(origin: string) {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  return { socket, closed, received: () => received };
}

describe('connection limits of the standalone server', () => {
  let cli: CliProcess;
  let origin: string;

  beforeAll(async () => {
    const config = withChanges(validConfig(), {
      http_limits: { headers_timeout_ms: 1000, request_timeout_ms: 1500, idle_timeout_ms: 5000 },
    });
    cli = new CliProcess(['serve', '--config', dir.write('limits.json', config), '--port', '0']);
    origin = await cli.origin();
  });
  afterAll(() => cli.kill());

  it('closes a connection that sends its body one byte a second, while discovery answers', async () => {
    const slow = rawConnection(origin);
    slow.socket.write(
      'POST /oauth/demo/token HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n',
    );
    let sent = 0;
    const drip = setInterval(() => {
      if (!slow.socket.destroyed) slow.socket.write('a');
      sent += 1;
    }, 1000);
    try {
      const discovery = await fetch(`${origin}${DISCOVERY}`);
      expect(discovery.status).toBe(200);
      await slow.closed;
      // Closed by the request timeout, long before the 100 bytes could arrive.
      expect(sent).toBeLessThan(10);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect((await fetch(`${origin}${DISCOVERY}`)).status).toBe(200);
    } finally {
      clearInterval(drip);
    }
  }, 20_000);

  it('closes a connection whose headers never end', async () => {
    const slow = rawConnection(origin);
    slow.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it('answers 431 to headers larger than max_header_bytes (16 KiB by default)', async () => {
    const response = await fetch(`${origin}${DISCOVERY}`, {
      headers: { 'x-padding': 'a'.repeat(17_000) },
    });
    expect(response.status).toBe(431);
  });
});

describe('gatehouse check of http_limits', () => {
  it('refuses a headers timeout longer than the request timeout', async () => {
    const file = dir.write(
      'limits-invalid.json',
      withChanges(validConfig(), {
        http_limits: { headers_timeout_ms: 20_000, request_timeout_ms: 10_000 },
      }),
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'http_limits.headers_timeout_ms: must not be more than request_timeout_ms',
    );
  });
});
