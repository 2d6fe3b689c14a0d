// CPU time of everything a measured run uses: the node processes (from /proc), the PostgreSQL
// processes serving the bench database (its backends, found in pg_stat_activity, plus the WAL
// writer, checkpointer and background writer, from /proc) and the Redis server (INFO cpu).
// PostgreSQL and Redis are shared with other work on this machine: backends of other databases
// are left out, but Redis's figure (and the auxiliary PostgreSQL processes') include whatever
// else ran meanwhile. `machineBusyMs` lets a reader see how much of the machine the run had.
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { cpuMs, machineBusyMs } from './proc.js';

interface Snapshot {
  processes: Record<string, number>;
  postgres: Map<number, { ms: number; role: string }>;
  redisMs: number;
  machineMs: number;
  wallMs: number;
}

export interface CpuUsage {
  wallMs: number;
  /** Per node process of the run (toolrun API and worker, or the baseline's producer and worker). */
  processesMs: Record<string, number>;
  postgresMs: number;
  /** PostgreSQL CPU by the application_name of the backend (or the auxiliary process type). */
  postgresByRoleMs: Record<string, number>;
  redisMs: number;
  totalMs: number;
  /** Busy CPU of the whole machine in the same interval (everything, other work included). */
  machineBusyMs: number;
}

export class CpuMeter {
  constructor(
    private readonly db: pg.Client,
    private readonly redis: Redis,
    private readonly databaseName: string,
  ) {}

  private async postgresProcesses(): Promise<Map<number, { ms: number; role: string }>> {
    const { rows } = await this.db.query<{ pid: number; role: string }>(
      `SELECT pid, CASE WHEN datname IS NULL THEN backend_type ELSE coalesce(nullif(application_name, ''), 'other') END AS role
         FROM pg_stat_activity
        WHERE (datname = $1 AND pid <> pg_backend_pid()) OR backend_type IN ('walwriter', 'checkpointer', 'background writer')`,
      [this.databaseName],
    );
    const result = new Map<number, { ms: number; role: string }>();
    for (const row of rows) {
      const ms = cpuMs(row.pid);
      if (ms !== null) result.set(row.pid, { ms, role: row.role });
    }
    return result;
  }

  private async redisCpuMs(): Promise<number> {
    const info = await this.redis.info('cpu');
    const value = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (value('used_cpu_user') + value('used_cpu_sys')) * 1000;
  }

  async snapshot(pids: Record<string, number>): Promise<Snapshot> {
    const processes: Record<string, number> = {};
    for (const [name, pid] of Object.entries(pids)) processes[name] = cpuMs(pid) ?? 0;
    const [postgres, redisMs] = await Promise.all([this.postgresProcesses(), this.redisCpuMs()]);
    return { processes, postgres, redisMs, machineMs: machineBusyMs(), wallMs: performance.now() };
  }

  /** CPU used since `start`; `postgres: false` for a run that does not use PostgreSQL (the raw baselines). */
  async usageSince(start: Snapshot, pids: Record<string, number>, options: { postgres: boolean }): Promise<CpuUsage> {
    const end = await this.snapshot(pids);
    const processesMs: Record<string, number> = {};
    for (const name of Object.keys(pids)) processesMs[name] = (end.processes[name] ?? 0) - (start.processes[name] ?? 0);
    const postgresByRoleMs: Record<string, number> = {};
    for (const [pid, { ms, role }] of end.postgres) {
      postgresByRoleMs[role] = (postgresByRoleMs[role] ?? 0) + ms - (start.postgres.get(pid)?.ms ?? 0);
    }
    const postgresMs = options.postgres ? Object.values(postgresByRoleMs).reduce((sum, ms) => sum + ms, 0) : 0;
    const redisMs = end.redisMs - start.redisMs;
    const nodeMs = Object.values(processesMs).reduce((sum, ms) => sum + ms, 0);
    return {
      wallMs: end.wallMs - start.wallMs,
      processesMs,
      postgresMs,
      postgresByRoleMs,
      redisMs,
      totalMs: nodeMs + postgresMs + redisMs,
      machineBusyMs: end.machineMs - start.machineMs,
    };
  }
}
