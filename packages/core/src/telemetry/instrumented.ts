import type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
import type { Realm } from '../realms/realm.js';
import type { Instrumentation, RequestInstrument } from './instrumentation.js';

/** A request whose realm and endpoint exist. */
export interface ResolvedRequest {
  realm: Realm;
  /** The endpoint's path below the realm. */
  endpoint: string;
}

/**
 * Answers a request inside the instrumentation's handle for it. A failing instrumentation is
 * reported and never fails the request: it is then answered without one, and never twice (a
 * `within` that fails after starting the answer leaves that answer the request's).
 */
export async function instrumented<R extends ResolvedRequest>(
  instrumentation: Instrumentation,
  request: GatehouseRequest,
  resolved: R,
  answer: (request: GatehouseRequest, resolved: R) => Promise<GatehouseResponse>,
  reportError: (error: unknown) => void,
): Promise<GatehouseResponse> {
  let instrument: RequestInstrument;
  try {
    instrument = instrumentation.startRequest({
      realm: resolved.realm.name,
      endpoint: resolved.endpoint,
      method: request.method,
    });
  } catch (error) {
    reportError(error);
    return answer(request, resolved);
  }
  let answering: Promise<GatehouseResponse> | undefined;
  let response: GatehouseResponse;
  try {
    response = await instrument.within(() => {
      answering = answer(request, resolved);
      return answering;
    });
  } catch (failure) {
    if (answering === undefined) {
      reportError(failure);
      return answer(request, resolved);
    }
    // A failure of the answer itself is the request's own, as without instrumentation.
    response = await answering;
    reportError(failure);
  }
  const error = response.errorCode;
  try {
    instrument.end(
      error === undefined ? { status: response.status } : { status: response.status, error },
    );
  } catch (failure) {
    reportError(failure);
  }
  return response;
}
