import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { documentedRun, runSnippet } from './typescript-snippet.js';

describe('docs/telemetry.md', () => {
  it('runs the example as saved from the page, and prints what it says, no secret in it', async () => {
    const { script, output } = documentedRun('telemetry.md', '## A complete run');
    const printed = await runSnippet('telemetry-demo.mts', script);
    expect(printed).toBe(output);
    expect(printed).not.toContain('reports-secret');
  }, 30_000);

  it('sends the span and the counter to an OTLP collector, as saved from the page', async () => {
    const { script, output } = documentedRun('telemetry.md', '## To an OTLP collector');
    const received = new Map<string, string>();
    const collector = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.set(request.url ?? '', (received.get(request.url ?? '') ?? '') + body);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const printed = await runSnippet('telemetry-otlp.mts', script, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      expect(printed).toBe(output);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
    const traces = received.get('/v1/traces') ?? '';
    const metrics = received.get('/v1/metrics') ?? '';
    expect(traces).toContain('"name":"gatehouse token"');
    expect(traces).toContain('"key":"gatehouse.realm"');
    expect(metrics).toContain('"name":"gatehouse.tokens.issued"');
    for (const sent of [traces, metrics]) expect(sent).not.toContain('reports-secret');
  }, 30_000);
});
