import type { RealmContext } from '../context.js';
import type { Instrumentation } from '../telemetry/instrumentation.js';
import type { EventDetails, GatehouseEvent } from './events.js';

/** Where the provider's events go: the host's listener and the instrumentation. */
export type EventSink = (event: GatehouseEvent) => void;

/**
 * The host's event listener. It is called once per event, after the step that caused it and
 * never awaited: a promise it returns does not hold the request, and whatever it throws or
 * rejects with goes to `onError`, never to the request.
 */
export type EventListener = (event: GatehouseEvent) => void | Promise<void>;

/** Reports an event of the realm; costs nothing when nobody listens. */
export function emitEvent(context: RealmContext, details: EventDetails): void {
  context.events?.({ ...details, realm: context.realm.name, time: context.now() });
}

/**
 * The sink of the provider's events, undefined when nobody takes them (emitting then costs
 * nothing). The instrumentation gets each event at once, its failures reported. The listener
 * gets it in a microtask of its own: its synchronous part runs once the provider's current step
 * is done, and its failures reach `reportError`. A microtask rather than a timer, so that runtimes
 * which stop a request's work once it is answered (workerd) still deliver every event.
 */
export function eventSink(
  listener: EventListener | undefined,
  instrumentation: Instrumentation | undefined,
  reportError: (error: unknown) => void,
): EventSink | undefined {
  const instrument = instrumentation?.event?.bind(instrumentation);
  if (!listener && !instrument) return undefined;
  return (event) => {
    if (instrument) {
      try {
        instrument(event);
      } catch (error) {
        reportError(error);
      }
    }
    if (listener) queueMicrotask(() => deliver(listener, event, reportError));
  };
}

function deliver(
  listener: EventListener,
  event: GatehouseEvent,
  reportError: (error: unknown) => void,
): void {
  try {
    const returned = listener(event);
    if (returned) Promise.resolve(returned).catch(reportError);
  } catch (error) {
    reportError(error);
  }
}
