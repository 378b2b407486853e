import type { GatehouseEvent } from '../events/events.js';

/**
 * How the provider reports to a tracing and metrics system (docs/telemetry.md).
 * `@gatehouse-oidc/core/opentelemetry` builds one on `@opentelemetry/api`; the core itself depends
 * on no telemetry library, and without an instrumentation a request pays for none.
 */
export interface Instrumentation {
  /** Called as the provider starts answering a request to an endpoint of a realm. */
  startRequest(request: InstrumentedRequest): RequestInstrument;
  /** Called with every event, synchronously where it happens: keep it quick (a counter). */
  event?(event: GatehouseEvent): void;
}

/** A request to an endpoint of a realm: both exist, so neither is the caller's free text. */
export interface InstrumentedRequest {
  realm: string;
  /** The endpoint's path below the realm: `token`, `authorize`, `.well-known/openid-configuration`… */
  endpoint: string;
  method: string;
}

/** One request, instrumented. */
export interface RequestInstrument {
  /** Runs the provider's answer, e.g. with the request's span active, and returns what it returns. */
  within<T>(answer: () => T): T;
  /** Called once with how the request was answered. */
  end(outcome: RequestOutcome): void;
}

export interface RequestOutcome {
  /** The HTTP status of the answer. */
  status: number;
  /**
   * The OAuth error code the answer carries (docs/errors.md), whether as a JSON body, an error
   * page or a redirect to the client; undefined for a success.
   */
  error?: string;
}
