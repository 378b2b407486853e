import type { Instrumentation } from '@gatehouse-oidc/core';
import { openTelemetry } from '@gatehouse-oidc/core/opentelemetry';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry's own SDK with in-memory exporters, to read what `openTelemetry()` told it: the
 * spans ended, and the counters read on demand (the periodic export never comes in a test).
 */
export class InMemoryTelemetry {
  readonly spans = new InMemorySpanExporter();
  readonly tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(this.spans)],
  });
  private reader = InMemoryTelemetry.newReader();

  /** `scope` names the tracer and the meter the instrumentation uses. */
  constructor(private readonly scope: string) {}

  /** Forgets the spans and counts so far; the instrumentation for the next provider under test. */
  fresh(): Instrumentation {
    this.spans.reset();
    this.reader = InMemoryTelemetry.newReader();
    return openTelemetry({
      tracer: this.tracerProvider.getTracer(this.scope),
      meter: new MeterProvider({ readers: [this.reader] }).getMeter(this.scope),
    });
  }

  /** Every metric recorded since `fresh()`. */
  collect() {
    return this.reader.collect();
  }

  /** The data points of a counter, as attributes and value. */
  async counted(name: string) {
    const { resourceMetrics } = await this.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((each) => each.descriptor.name === name);
    return (metric?.dataPoints ?? []).map(({ attributes, value }) => ({ attributes, value }));
  }

  private static newReader(): PeriodicExportingMetricReader {
    return new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
  }
}
