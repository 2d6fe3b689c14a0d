// What a running background tool reports — status text, progress, output chunks — collected in
// memory and flushed in order: at most one write in flight, bursts coalesced into the next one
// (the latest status and progress win; output is concatenated). The output log's cap and the
// tail are applied here (background-output.ts); each flush also proves the attempt alive.
import {
  appendOutput,
  type OutputState,
  type OutputStream,
} from '../domain/tasks/background-output.js';
import type { ActivityUpdate, OutputChunk } from '../domain/tasks/task-transitions.js';
import type { Logger } from '../logger.js';
import type { ToolProgress } from '../model/events.js';

interface Pending {
  stateDetail?: string;
  progress?: ToolProgress;
  logText: string;
  chunks: OutputChunk[];
  /** The stream whose output reached the log's cap, when one did. */
  truncatedIn: OutputStream | null;
  output: boolean;
}

const empty = (): Pending => ({ logText: '', chunks: [], truncatedIn: null, output: false });
const WRITE_ATTEMPTS = 3;

export class TaskSink {
  private state: OutputState = { tail: '', logChars: 0, truncated: false };
  private pending: Pending = empty();
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private superseded = false;

  constructor(
    /** Writes one update; false when the attempt was superseded. */
    private readonly write: (update: ActivityUpdate) => Promise<boolean>,
    private readonly onSuperseded: () => void,
    private readonly logger: Logger,
    private readonly delayMs = 50,
  ) {}

  status(text: string): void {
    this.pending.stateDetail = text;
    this.schedule();
  }

  progress(progress: ToolProgress): void {
    this.pending.progress = { ...progress };
    this.schedule();
  }

  output(stream: OutputStream, text: string): void {
    if (typeof text !== 'string' || text === '') return;
    const applied = appendOutput(this.state, stream, text);
    this.state = applied.state;
    const pending = this.pending;
    pending.output = true;
    pending.logText += applied.logText;
    if (applied.truncatedNow) pending.truncatedIn = stream;
    if (applied.keptText) {
      const last = pending.chunks.at(-1);
      if (last?.stream === stream) last.text += applied.keptText;
      else pending.chunks.push({ stream, text: applied.keptText });
    }
    this.schedule();
  }

  /** Waits until everything reported so far is written. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (!this.inFlight && this.hasPending()) this.inFlight = this.pump();
    await this.inFlight;
  }

  private hasPending(): boolean {
    const pending = this.pending;
    return pending.stateDetail !== undefined || pending.progress !== undefined || pending.output;
  }

  private schedule(): void {
    if (this.superseded || this.inFlight || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.inFlight) this.inFlight = this.pump();
    }, this.delayMs);
  }

  private take(): ActivityUpdate {
    const pending = this.pending;
    this.pending = empty();
    const update: ActivityUpdate = {};
    if (pending.stateDetail !== undefined) update.stateDetail = pending.stateDetail;
    if (pending.progress !== undefined) update.progress = pending.progress;
    if (pending.output) {
      update.output = { ...this.state, logText: pending.logText, chunks: pending.chunks, truncatedIn: pending.truncatedIn };
    }
    return update;
  }

  private async pump(): Promise<void> {
    try {
      while (!this.superseded && this.hasPending()) {
        const update = this.take();
        let ok = true;
        for (let attempt = 1; ; attempt++) {
          try {
            ok = await this.write(update);
            break;
          } catch (error) {
            if (attempt >= WRITE_ATTEMPTS) {
              this.logger.warn({ err: error }, 'background run activity could not be recorded; dropped');
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
          }
        }
        if (!ok) {
          this.superseded = true;
          this.pending = empty();
          this.onSuperseded();
        }
      }
    } finally {
      this.inFlight = null;
    }
  }
}
