import {
  context,
  type Meter,
  metrics,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { CibaPingEvent, GatehouseEvent } from '../events/events.js';
import type {
  Instrumentation,
  InstrumentedRequest,
  RequestInstrument,
  RequestOutcome,
} from '../telemetry/instrumentation.js';

/** The instrumentation scope of Gatehouse's spans and metrics. */
export const INSTRUMENTATION_SCOPE = '@gatehouse-oidc/core';

/** Attribute names of Gatehouse's spans and metrics (docs/telemetry.md). */
export const ATTRIBUTES = {
  realm: 'gatehouse.realm',
  endpoint: 'gatehouse.endpoint',
  grantType: 'gatehouse.grant_type',
  clientId: 'gatehouse.client_id',
  outcome: 'gatehouse.outcome',
  error: 'gatehouse.oauth.error',
  method: 'http.request.method',
  status: 'http.response.status_code',
} as const;

/** Metric names. */
export const METRICS = {
  tokensIssued: 'gatehouse.tokens.issued',
  errors: 'gatehouse.errors',
  cibaPings: 'gatehouse.ciba.pings',
} as const;

export interface OpenTelemetryOptions {
  /** Default: the global tracer provider's tracer for Gatehouse. */
  tracer?: Tracer;
  /** Default: the global meter provider's meter for Gatehouse. */
  meter?: Meter;
}

/**
 * Traces and metrics through `@opentelemetry/api`, for `createProvider({ instrumentation })`:
 * a span per request to an endpoint of a realm (`gatehouse {endpoint}`, with the realm, the
 * endpoint, the method, the status and the OAuth error code of a failure), two counters:
 * token responses by realm and grant type, error answers by realm, endpoint and code; and for
 * each CIBA ping, a span `gatehouse ciba ping` over its attempts and a counter by realm and
 * outcome. Without a registered SDK, the API's no-op tracer and meter make it cost next to
 * nothing.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Instrumentation {
  const tracer = options.tracer ?? trace.getTracer(INSTRUMENTATION_SCOPE);
  const meter = options.meter ?? metrics.getMeter(INSTRUMENTATION_SCOPE);
  const tokensIssued = meter.createCounter(METRICS.tokensIssued, {
    description: 'Token responses, by realm and grant type',
    unit: '{response}',
  });
  const errors = meter.createCounter(METRICS.errors, {
    description: 'Answers carrying an OAuth error, by realm, endpoint and error code',
    unit: '{response}',
  });
  const cibaPings = meter.createCounter(METRICS.cibaPings, {
    description: 'CIBA pings to clients, by realm and outcome (sent or failed)',
    unit: '{notification}',
  });

  function startRequest({ realm, endpoint, method }: InstrumentedRequest): RequestInstrument {
    const span = tracer.startSpan(`gatehouse ${endpoint}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTRIBUTES.realm]: realm,
        [ATTRIBUTES.endpoint]: endpoint,
        [ATTRIBUTES.method]: method,
      },
    });
    const active = trace.setSpan(context.active(), span);
    return {
      within: (answer) => context.with(active, answer),
      end({ status, error }: RequestOutcome) {
        span.setAttribute(ATTRIBUTES.status, status);
        if (error !== undefined) {
          span.setAttribute(ATTRIBUTES.error, error);
          errors.add(1, {
            [ATTRIBUTES.realm]: realm,
            [ATTRIBUTES.endpoint]: endpoint,
            [ATTRIBUTES.error]: error,
          });
        }
        // OpenTelemetry's HTTP conventions: a 4xx is the client's error, not the server's.
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        span.end();
      },
    };
  }

  /** A ping runs after the decision, outside any request: its span is drawn once it ended. */
  function cibaPing(event: CibaPingEvent): void {
    const outcome = event.type === 'ciba_ping_sent' ? 'sent' : 'failed';
    cibaPings.add(1, { [ATTRIBUTES.realm]: event.realm, [ATTRIBUTES.outcome]: outcome });
    const span = tracer.startSpan('gatehouse ciba ping', {
      kind: SpanKind.CLIENT,
      startTime: event.time - event.durationMs,
      attributes: {
        [ATTRIBUTES.realm]: event.realm,
        [ATTRIBUTES.clientId]: event.clientId,
        [ATTRIBUTES.outcome]: outcome,
      },
    });
    if (event.reason !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason });
    }
    span.end(event.time);
  }

  function event(event: GatehouseEvent): void {
    if (event.type === 'token_issued') {
      tokensIssued.add(1, {
        [ATTRIBUTES.realm]: event.realm,
        [ATTRIBUTES.grantType]: event.grantType,
      });
    } else if (event.type === 'ciba_ping_sent' || event.type === 'ciba_ping_failed') {
      cibaPing(event);
    }
  }

  return { startRequest, event };
}
