// The Health page's figures: deployment-wide ones only as totals, per-tenant ones for the viewer's tenant.
import type { EventLagWindow, QueueDepth, SystemStatus } from '../domain/system-status.js';
import { CallStatusCountsRef } from './batch.js';
import { builder } from './builder.js';

export const QueueDepthRef = builder.objectRef<QueueDepth>('QueueDepth').implement({
  description: 'Jobs of one job queue by state, across the deployment (every tenant’s jobs together)',
  fields: (t) => ({
    queue: t.exposeString('queue', { description: 'The queue: `calls` (tool calls) or `tasks` (background runs and schedules)' }),
    waiting: t.exposeInt('waiting', { description: 'Jobs ready to run, waiting for a worker (BullMQ waiting and prioritized)' }),
    active: t.exposeInt('active', { description: 'Jobs a worker is running' }),
    delayed: t.exposeInt('delayed', { description: 'Jobs due later (retries after a backoff, one-shot schedules)' }),
    failed: t.exposeInt('failed', { description: 'Jobs that failed on infrastructure errors and were not retried further' }),
  }),
});

export const EventLagRef = builder.objectRef<EventLagWindow>('EventLag').implement({
  description:
    'How long events took from their commit to this API process (the one answering), over a recent window; counted only for tenants whose events this process streams, and only as totals',
  fields: (t) => ({
    windowMs: t.exposeInt('windowMs', { description: 'Length of the window, in milliseconds' }),
    messages: t.exposeInt('messages', { description: 'Published messages (a transaction’s events for one tenant) received in the window' }),
    medianMs: t.exposeFloat('medianMs', { nullable: true, description: 'Median lag in milliseconds (null when nothing arrived in the window)' }),
    maxMs: t.exposeFloat('maxMs', { nullable: true, description: 'Largest lag in milliseconds (null when nothing arrived in the window)' }),
    lastAt: t.expose('lastAt', { type: 'DateTime', nullable: true, description: 'When the newest message of the window arrived' }),
  }),
});

export const SystemStatusRef = builder.objectRef<SystemStatus>('SystemStatus').implement({
  description: 'What the deployment is doing now: queue depths and workers alive (totals of every tenant), event lag, and the viewer’s tenant’s unfinished calls',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'When these figures were read' }),
    queues: t.field({
      type: [QueueDepthRef],
      nullable: true,
      description: 'Each job queue’s depth, deployment-wide (null while Redis does not answer)',
      resolve: (status) => status.queues,
    }),
    workersAlive: t.exposeInt('workersAlive', { description: 'Workers of this deployment whose heartbeat is fresh, as the worker registry in PostgreSQL has it' }),
    eventLag: t.field({ type: EventLagRef, description: 'Event delivery lag to this API process over the last minute', resolve: (status) => status.eventLag }),
    tenantCalls: t.field({
      type: CallStatusCountsRef,
      description: 'The viewer’s tenant’s calls that are not final yet, by status (final statuses count 0 here: see `toolCallCounts`)',
      resolve: (status, _args, { services }) => services.systemStatus.tenantUnfinishedCalls(status),
    }),
  }),
});
