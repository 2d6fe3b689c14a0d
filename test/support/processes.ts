// Real worker processes (`src/bin/worker.ts`, compiled: see cluster.ts `toolrunNodeArgs`) that
// join an in-process toolrun (startToolrun, usually with `{ worker: false }`): same database, same Redis prefix and the same
// configuration, so a test can run work on them, SIGKILL them in the middle and watch recovery.
// Built on cluster.ts's Child (output kept for failure messages, awaitable exit).
import type { Config } from '../../src/config.js';
import { ensureBuilt } from './build.js';
import { Child, type Exit, toolrunNodeArgs } from './cluster.js';

export interface WorkerProcess {
  name: string;
  /** The WORKER_ID the process runs as (what `task.worker_id` / `tool_call.worker_id` say). */
  workerId: string;
  child: Child;
  /** Kills the process at once (no shutdown, no cleanup), like a crash. */
  kill(): Promise<Exit>;
  /** SIGTERM (graceful shutdown), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<Exit>;
}

/** Config keys a child never inherits from the in-process configuration. */
const PER_PROCESS_KEYS = new Set<keyof Config>(['WORKER_ID', 'PORT', 'HOST', 'LOG_LEVEL', 'defaults']);

export class WorkerProcesses {
  private readonly started: WorkerProcess[] = [];

  /** `config` is the in-process toolrun's (`app.services.config`); `env` overrides single keys. */
  constructor(private readonly config: Config) {}

  async start(name: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    await ensureBuilt();
    const workerId = `${this.config.REDIS_PREFIX}:${name}`;
    const inherited: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.config)) {
      if (value !== undefined && !PER_PROCESS_KEYS.has(key as keyof Config)) inherited[key] = String(value);
    }
    const child = new Child(name, process.execPath, toolrunNodeArgs('src/bin/worker.ts'), {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...inherited,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_CHILD_LOG_LEVEL ?? 'info',
      WORKER_ID: workerId,
      ...env,
    });
    const worker: WorkerProcess = {
      name,
      workerId,
      child,
      kill: async () => {
        child.signal('SIGKILL');
        return child.exited;
      },
      stop: (graceMs = 10_000) => child.stop(graceMs),
    };
    this.started.push(worker);
    // A worker process starts in about a second; on a loaded 2-core machine it has taken over 30 s.
    await child.waitForLine(/worker running/, 60_000);
    return worker;
  }

  /** What every process said, for failure messages. */
  output(): string {
    return this.started.map((worker) => worker.child.output()).join('\n');
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((worker) => worker.stop(5000)));
  }
}
