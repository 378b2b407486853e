import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from '../support/fixtures.js';
import { serviceTokenRequest, validConfig } from './support.js';

/**
 * The standalone server's events and telemetry (docs/telemetry.md): the events operators must see
 * go to its log, a line each and without secrets; spans go to an OpenTelemetry SDK registered
 * before it starts.
 */

const spans = new InMemorySpanExporter();

beforeAll(() => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  );
});
afterAll(() => trace.disable());

describe('the standalone server', () => {
  it('logs a failed client authentication, without what was presented, and not a token issued', async () => {
    const lines: string[] = [];
    const { app } = buildServer(parseServerConfig(validConfig()), {
      eventLog: (line) => lines.push(line),
    });
    try {
      const issued = await app.inject(serviceTokenRequest('demo', SECRETS.post));
      const wrong = `${SECRETS.post}-but-wrong`;
      expect((await app.inject(serviceTokenRequest('demo', wrong))).statusCode).toBe(400);
      await new Promise((resolve) => setTimeout(resolve, 0));

      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\[gatehouse\] event client_authentication_failed: \{.*\}\n$/);
      expect(JSON.parse(lines[0]?.slice(lines[0].indexOf('{')) ?? '')).toMatchObject({
        type: 'client_authentication_failed',
        realm: 'demo',
        clientId: 'service',
        presentedAs: 'post',
        endpoint: 'token',
      });
      expect(lines[0]).not.toContain(SECRETS.post);
      expect(lines[0]).not.toContain(issued.json().access_token);
    } finally {
      await app.close();
    }
  });

  it('sends a span per request to the OpenTelemetry SDK registered before it started', async () => {
    spans.reset();
    const { app } = buildServer(parseServerConfig(validConfig()), { eventLog: () => {} });
    try {
      await app.inject(serviceTokenRequest('demo', SECRETS.post));
      await app.inject({ url: '/oauth/demo/.well-known/openid-configuration' });
      expect(spans.getFinishedSpans().map((span) => span.name)).toEqual([
        'gatehouse token',
        'gatehouse .well-known/openid-configuration',
      ]);
    } finally {
      await app.close();
    }
  });
});
