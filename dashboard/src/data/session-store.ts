// What a session view shows of its batches and calls: a snapshot read once, then moved forward by
// the session's tool call events. Events that arrive while a batch's calls are still loading are
// kept and applied after the snapshot; a finished call never goes back to an earlier state.
import type { BatchSummaryFragment, CallRowFragment, ToolCallEventsSubscription } from '../gql/graphql.js';

export type CallEvent = ToolCallEventsSubscription['toolCallEvents'];
export type CallState = CallRowFragment & { progress?: { current?: number | null; total?: number | null } | null };

export interface BatchState {
  summary: BatchSummaryFragment;
  /** null until the calls are loaded. */
  calls: Map<string, CallState> | null;
  order: string[];
  loading: boolean;
  /** Events of this batch that arrived while its calls were loading. */
  held: CallEvent[];
  /** Moves on every change of a call (calls are changed in place; each changed call is a new object). */
  revision: number;
}

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

export class SessionStore {
  readonly batches = new Map<string, BatchState>();
  /** Every event the view received, in order (the activity list). */
  readonly activity: Array<{ seq: number; type: string; subject: string; at: string }> = [];
  version = 0;
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = () => this.version;

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  setBatches(summaries: BatchSummaryFragment[]): void {
    for (const summary of summaries) {
      const known = this.batches.get(summary.batchId);
      if (known) known.summary = { ...summary, status: known.summary.status === 'COMPLETED' ? 'COMPLETED' : summary.status };
      else this.batches.set(summary.batchId, { summary, calls: null, order: [], loading: false, held: [], revision: 0 });
    }
    this.changed();
  }

  /** Marks a batch as loading; events for it are held until `loaded`. */
  loading(batchId: string): boolean {
    const batch = this.batches.get(batchId);
    if (!batch || batch.loading || batch.calls) return false;
    batch.loading = true;
    return true;
  }

  loaded(batchId: string, summary: BatchSummaryFragment, calls: CallRowFragment[]): void {
    const batch = this.batches.get(batchId) ?? { summary, calls: null, order: [], loading: true, held: [], revision: 0 };
    this.batches.set(batchId, batch);
    batch.summary = { ...summary, status: batch.summary.status === 'COMPLETED' ? 'COMPLETED' : summary.status };
    batch.calls = new Map(calls.map((call) => [call.callId, call]));
    batch.order = [...calls].sort((a, b) => a.position - b.position).map((call) => call.callId);
    batch.loading = false;
    batch.revision++;
    const held = batch.held;
    batch.held = [];
    for (const event of held) this.applyToBatch(batch, event);
    this.changed();
  }

  /** Applies events in order; returns the ids of batches that were not known (the view loads them). */
  apply(events: CallEvent[]): string[] {
    const unknown: string[] = [];
    for (const event of events) {
      this.activity.push({ seq: event.seq, type: event.type, subject: 'callId' in event ? event.callId : 'batchId' in event ? event.batchId : '', at: event.at });
      const batchId = 'batchId' in event ? event.batchId : null;
      if (!batchId) continue;
      let batch = this.batches.get(batchId);
      if (!batch) {
        batch = {
          summary: { batchId, status: 'RUNNING', callCount: 0, pendingCount: 0, createdAt: event.at, completedAt: null },
          calls: null,
          order: [],
          loading: false,
          held: [],
          revision: 0,
        };
        this.batches.set(batchId, batch);
        unknown.push(batchId);
      }
      if (!batch.calls) batch.held.push(event);
      else this.applyToBatch(batch, event);
    }
    this.changed();
    return unknown;
  }

  private applyToBatch(batch: BatchState, event: CallEvent): void {
    if (event.__typename === 'ToolBatchCompleted') {
      batch.summary = { ...batch.summary, status: 'COMPLETED', completedAt: event.at, pendingCount: 0 };
      batch.revision++;
      return;
    }
    if (!('callId' in event) || !batch.calls) return;
    const call = batch.calls.get(event.callId);
    if (!call || FINAL.has(call.status)) return;
    const next: CallState = { ...call };
    switch (event.__typename) {
      case 'ToolCallStarted':
        Object.assign(next, { status: 'RUNNING', startedAt: event.at, attempt: event.attempt });
        break;
      case 'ToolCallCompleted':
        Object.assign(next, { status: event.status, completedAt: event.at, durationMs: event.durationMs, attempt: event.attempt, progress: null });
        if (!next.startedAt) next.startedAt = null;
        break;
      case 'ToolCallRetrying':
        Object.assign(next, { status: 'QUEUED', attempt: event.nextAttempt, startedAt: null });
        break;
      case 'ToolCallProgress':
        Object.assign(next, { status: 'RUNNING', startedAt: next.startedAt ?? event.at, progress: event.progress });
        break;
      case 'ToolCallAwaitingApproval':
        next.status = 'AWAITING_APPROVAL';
        break;
      case 'ToolCallApproved':
        next.status = 'QUEUED';
        break;
      case 'ToolCallAwaitingCompletion':
        next.status = 'PENDING_EXTERNAL';
        break;
      default:
        return;
    }
    batch.calls.set(event.callId, next);
    batch.revision++;
  }
}
