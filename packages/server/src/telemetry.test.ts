import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { registeredTelemetry } from './telemetry.js';

afterEach(() => {
  trace.disable();
  metrics.disable();
});

describe('registeredTelemetry', () => {
  it('is nothing while no OpenTelemetry SDK is registered', () => {
    expect(registeredTelemetry()).toBeUndefined();
  });

  it('instruments once a tracer provider is registered', () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    expect(registeredTelemetry()).toEqual(
      expect.objectContaining({ startRequest: expect.any(Function) }),
    );
  });

  it('instruments once only a meter provider is registered', () => {
    metrics.setGlobalMeterProvider(new MeterProvider());
    expect(registeredTelemetry()).toBeDefined();
  });
});
