// Folds the start and completion writes of many concurrently running calls into one statement
// each: while one flush is in flight, the next requests wait and then go together. On a busy
// worker this turns hundreds of single-row transitions per second into a few bulk ones.
import { type CallRecord, completeAttempts, startAttempts } from '../domain/calls/call-transitions.js';
import type { EventLog } from '../domain/event-log.js';
import type { ToolCallOutput } from '../model/outcome.js';

class Coalescer<Item, Result> {
  private queue: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(private readonly flush: (items: Item[]) => Promise<Result[]>) {}

  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, 500);
        try {
          const results = await this.flush(group.map((entry) => entry.item));
          group.forEach((entry, index) => entry.resolve(results[index]!));
        } catch (error) {
          for (const entry of group) entry.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

interface Completion {
  call: CallRecord;
  attempt: number;
  output: ToolCallOutput;
}

export class CallStateWriter {
  private readonly starts: Coalescer<{ sessionId: string; callRowId: string }, CallRecord | null>;
  private readonly completions: Coalescer<Completion, CallRecord | null>;

  constructor(eventLog: EventLog, workerId: string) {
    this.starts = new Coalescer(async (items) => {
      const started = await eventLog.write(sessionsOf(items.map((item) => item.sessionId)), (scope) =>
        startAttempts(scope, items.map((item) => item.callRowId), workerId),
      );
      return items.map((item) => started.get(item.callRowId) ?? null);
    });
    this.completions = new Coalescer(async (items) => {
      const completed = await eventLog.write(sessionsOf(items.map((item) => item.call.sessionId)), (scope) =>
        completeAttempts(scope, items.map((item) => ({ callRowId: item.call.id, attempt: item.attempt, output: item.output }))),
      );
      return items.map((item) => completed.get(item.call.id) ?? null);
    });
  }

  /** QUEUED → RUNNING; null when the call was not QUEUED any more. */
  start(sessionId: string, callRowId: string): Promise<CallRecord | null> {
    return this.starts.submit({ sessionId, callRowId });
  }

  /** RUNNING(attempt) → terminal; null when that attempt was superseded or the call already ended. */
  complete(call: CallRecord, attempt: number, output: ToolCallOutput): Promise<CallRecord | null> {
    return this.completions.submit({ call, attempt, output });
  }
}

function sessionsOf(ids: string[]): string[] {
  return [...new Set(ids)];
}
