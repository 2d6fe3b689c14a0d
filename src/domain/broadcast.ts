// The domain's port to announcements across processes (realtime/event-bus.ts implements it on
// Redis pub/sub), and the cancel signal sent on it: whoever records a cancel request publishes the
// ids; every worker listens and aborts what it runs of them. The durable record is the fallback
// (workers read it on their heartbeat), so a lost message only delays a cancel.

export interface Broadcast {
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once subscribed, with the unsubscribe. */
  subscribe(channel: string, listener: (message: unknown) => void): Promise<() => Promise<void>>;
  /** Messages published while the connection was down are lost: listeners re-read what they need. */
  onReconnect(listener: () => void): () => void;
}

const CANCEL_CHANNEL = 'cancel';

export interface CancelSignal {
  callRowIds?: string[];
  taskIds?: string[];
}

export function publishCancel(broadcast: Broadcast, signal: CancelSignal): Promise<void> {
  return broadcast.publish(CANCEL_CHANNEL, signal);
}

/** Calls `onCancel` with every id a cancel signal names; resolves once subscribed, with the unsubscribe. */
export function subscribeCancels(broadcast: Broadcast, onCancel: (id: string) => void): Promise<() => Promise<void>> {
  return broadcast.subscribe(CANCEL_CHANNEL, (message) => {
    const signal = message as CancelSignal;
    for (const id of [...(signal.callRowIds ?? []), ...(signal.taskIds ?? [])]) onCancel(id);
  });
}
