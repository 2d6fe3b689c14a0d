// Fast cross-process cancellation: whoever records a cancel request publishes the ids on this
// channel; every worker listens and aborts what it runs of them. The durable record is the
// fallback (workers read it on their heartbeat), so a lost message only delays a cancel.
import type { EventBus } from './event-bus.js';

const CANCEL_CHANNEL = 'cancel';

export interface CancelSignal {
  callRowIds?: string[];
  taskIds?: string[];
}

export function publishCancel(bus: EventBus, signal: CancelSignal): Promise<void> {
  return bus.publish(CANCEL_CHANNEL, signal);
}

/** Calls `onCancel` with every id a cancel signal names; resolves once subscribed, with the unsubscribe. */
export function subscribeCancels(bus: EventBus, onCancel: (id: string) => void): Promise<() => Promise<void>> {
  return bus.subscribe(CANCEL_CHANNEL, (message) => {
    const signal = message as CancelSignal;
    for (const id of [...(signal.callRowIds ?? []), ...(signal.taskIds ?? [])]) onCancel(id);
  });
}
