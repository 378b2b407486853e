import type { Instrumentation } from '@gatehouse-oidc/core';
import { INSTRUMENTATION_SCOPE, openTelemetry } from '@gatehouse-oidc/core/opentelemetry';
import { createNoopMeter, metrics, ProxyTracer, trace } from '@opentelemetry/api';

/**
 * `openTelemetry()` when an OpenTelemetry SDK has registered a global tracer or meter provider
 * (before the server starts, as `node --import` does), else nothing: the API's no-op tracer and
 * meter still cost the token endpoint 8–12% of its CPU (docs/performance.md), for no output.
 */
export function registeredTelemetry(): Instrumentation | undefined {
  // Without a registered provider the API hands out proxies and its shared no-op meter.
  const tracing = !(trace.getTracer(INSTRUMENTATION_SCOPE) instanceof ProxyTracer);
  const metering = metrics.getMeter(INSTRUMENTATION_SCOPE) !== createNoopMeter();
  return tracing || metering ? openTelemetry() : undefined;
}
