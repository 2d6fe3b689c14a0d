// What a session view shows of its batches and calls: a snapshot read once, then moved forward by
// the session's tool call events. A batch's summary (status, call count, outcome) follows its events
// whether or not its calls are loaded; its calls are read only when it is opened, and events that
// arrive while they load are kept and applied after the read. A finished call never goes back to an
// earlier state.
import type { ActivityEventFragment, BatchSummaryFragment, CallEventFragment, CallRowFragment } from '../gql/graphql.js';

export type CallEvent = CallEventFragment;
export type CallState = CallRowFragment & { progress?: { current?: number | null; total?: number | null } | null };
type BatchCompleted = Extract<CallEvent, { __typename: 'ToolBatchCompleted' }>;

export interface BatchState {
  summary: BatchSummaryFragment;
  /** False while the summary is a stand-in made from the batch's first event (its read is on the way). */
  summaryRead: boolean;
  /** The calls by final status, from the batch's ToolBatchCompleted (for a batch whose calls are not loaded). */
  outcome: { succeeded: number; failed: number; cancelled: number } | null;
  /** null until the calls are loaded. */
  calls: Map<string, CallState> | null;
  order: string[];
  loading: boolean;
  /** Events of this batch that arrived while its calls were loading. */
  held: CallEvent[];
  /** Moves on every change of the batch (calls are changed in place; each changed call is a new object). */
  revision: number;
}

/** A read summary, except that a batch already seen completing stays completed (the read may predate its event). */
function merged(known: BatchSummaryFragment | undefined, read: BatchSummaryFragment): BatchSummaryFragment {
  if (known?.status !== 'COMPLETED' || read.status === 'COMPLETED') return read;
  return { ...read, status: known.status, completedAt: known.completedAt, pendingCount: 0 };
}

const FINAL = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

export interface ActivityRow {
  seq: number;
  type: string;
  /** The call id, or the batch id of a batch's event. */
  subject: string;
  at: string;
}

const activityRow = (event: { seq: number; type: string; at: string; callId?: string; batchId?: string }): ActivityRow => ({
  seq: event.seq,
  type: event.type,
  subject: event.callId ?? event.batchId ?? '',
  at: event.at,
});

export class SessionStore {
  readonly batches = new Map<string, BatchState>();
  /** The session's recent events, then every event the view received, in order, each once (the activity list). */
  activity: ActivityRow[] = [];
  private readonly activitySeqs = new Set<number>();
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
      if (known) this.summarized(known, summary);
      else this.batches.set(summary.batchId, { summary, summaryRead: true, outcome: null, calls: null, order: [], loading: false, held: [], revision: 0 });
    }
    this.changed();
  }

  /** The read summary of a batch first seen in an event. */
  read(summary: BatchSummaryFragment): void {
    const batch = this.batches.get(summary.batchId);
    if (!batch) return;
    this.summarized(batch, summary);
    this.changed();
  }

  private summarized(batch: BatchState, summary: BatchSummaryFragment): void {
    batch.summary = merged(batch.summary, summary);
    batch.summaryRead = true;
    batch.revision++;
  }

  /** Marks a batch as loading; events for it are held until `loaded`. */
  loading(batchId: string): boolean {
    const batch = this.batches.get(batchId);
    if (!batch || batch.loading || batch.calls) return false;
    batch.loading = true;
    return true;
  }

  /** A read of a batch's calls that was not answered: it may be read again (events held meanwhile are in that read). */
  unloaded(batchId: string): void {
    const batch = this.batches.get(batchId);
    if (!batch?.loading) return;
    batch.loading = false;
    batch.held = [];
    this.changed();
  }

  loaded(batchId: string, summary: BatchSummaryFragment, calls: CallRowFragment[]): void {
    const batch = this.batches.get(batchId) ?? { summary, summaryRead: true, outcome: null, calls: null, order: [], loading: true, held: [], revision: 0 };
    this.batches.set(batchId, batch);
    this.summarized(batch, summary);
    batch.calls = new Map(calls.map((call) => [call.callId, call]));
    batch.order = [...calls].sort((a, b) => a.position - b.position).map((call) => call.callId);
    batch.loading = false;
    batch.revision++;
    const held = batch.held;
    batch.held = [];
    for (const event of held) this.applyToBatch(batch, event);
    this.changed();
  }

  /** The events the session had when the view read it (some may arrive again on the stream). */
  recent(events: ActivityEventFragment[]): void {
    const fresh = events.filter((event) => !this.activitySeqs.has(event.seq));
    if (fresh.length === 0) return;
    for (const event of fresh) this.activitySeqs.add(event.seq);
    this.activity = [...this.activity, ...fresh.map(activityRow)].sort((a, b) => a.seq - b.seq);
    this.changed();
  }

  /** Applies events in order; returns the ids of batches that were not known (the view reads their summaries). */
  apply(events: CallEvent[]): string[] {
    const unknown: string[] = [];
    for (const event of events) {
      if (!this.activitySeqs.has(event.seq)) {
        this.activitySeqs.add(event.seq);
        this.activity.push(activityRow(event));
      }
      const batchId = 'batchId' in event ? event.batchId : null;
      if (!batchId) continue;
      let batch = this.batches.get(batchId);
      if (!batch) {
        batch = {
          summary: { batchId, status: 'RUNNING', callCount: 0, pendingCount: 0, createdAt: event.at, completedAt: null },
          summaryRead: false,
          outcome: null,
          calls: null,
          order: [],
          loading: false,
          held: [],
          revision: 0,
        };
        this.batches.set(batchId, batch);
        unknown.push(batchId);
      }
      if (event.__typename === 'ToolBatchCompleted') this.complete(batch, event);
      else if (batch.loading) batch.held.push(event);
      else if (batch.calls) this.applyToBatch(batch, event);
      // Otherwise the calls are not loaded: their read, when the batch is opened, includes this event.
    }
    this.changed();
    return unknown;
  }

  private complete(batch: BatchState, event: BatchCompleted): void {
    batch.summary = { ...batch.summary, status: 'COMPLETED', completedAt: event.at, pendingCount: 0, callCount: event.total };
    batch.outcome = { succeeded: event.succeeded, failed: event.failed, cancelled: event.cancelled };
    batch.revision++;
  }

  private applyToBatch(batch: BatchState, event: CallEvent): void {
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
