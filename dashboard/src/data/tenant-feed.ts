// Tenant-wide live views (the sessions list, the approvals inbox): the tenant's cursor first, then
// the view's snapshot, then `tenantEvents` from that cursor — nothing between the snapshot and the
// stream is missed, and what both hold is applied idempotently by the view. A cursor or snapshot
// read that toolrun did not answer (away, restarting) is tried again every READ_RETRY_MS until it
// does. Reloads queued by events run as one query, a moment after the first event that asked (no
// timer polling).
import type { Client } from 'urql';
import { type EventType, TenantActivityDocument, type TenantActivityEventFragment, TenantCursorDocument } from '../gql/graphql.js';
import { type Link, tenantStartCursor, watch } from './connection.js';

export type TenantEvent = TenantActivityEventFragment;

/** How long a view waits to read its cursor and snapshot again when toolrun did not answer. */
const READ_RETRY_MS = 2000;

export interface TenantFeedHandlers {
  /** Reads the view's snapshot; events from the cursor read before it follow. False when toolrun did not answer: it is read again later. */
  load(client: Client): Promise<boolean>;
  onEvents(events: TenantEvent[]): void;
  /** The tenant's cursor could not be read (toolrun away): the view says so; it is read again later. */
  onUnanswered(message: string): void;
}

/** Follows the tenant's events of `types` for a view; a cursor past retention starts over. Returns a function that stops it. */
export function followTenant(link: Link, types: EventType[], handlers: TenantFeedHandlers): () => void {
  let stopped = false;
  let stopWatch: (() => void) | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (!stopped) retry = setTimeout(() => void start(), READ_RETRY_MS);
  };
  const start = async () => {
    const answer = await link.urql.query(TenantCursorDocument, {}, { requestPolicy: 'network-only' }).toPromise();
    if (stopped) return;
    if (!answer.data) {
      handlers.onUnanswered(`toolrun does not answer (${answer.error?.message ?? 'no answer'}); trying again…`);
      return again();
    }
    const after = answer.data.tenantSettings.lastEventCursor ?? tenantStartCursor(answer.data.viewer.tenantId);
    if (!(await handlers.load(link.urql))) return again();
    if (stopped) return;
    stopWatch = watch(link, TenantActivityDocument, { after, types }, {
      onEvents: handlers.onEvents,
      onExpired: () => void start(),
    });
  };
  void start();
  return () => {
    stopped = true;
    clearTimeout(retry);
    stopWatch?.();
  };
}

/**
 * Runs `run` once `delayMs` after the first `request()`; requests meanwhile join that run, and
 * requests while it runs make one more run after it.
 */
export function coalesced(run: () => Promise<void>, delayMs: number): { request(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  const fire = async () => {
    timer = undefined;
    running = true;
    try {
      await run();
    } finally {
      running = false;
      if (again && !stopped) {
        again = false;
        timer = setTimeout(() => void fire(), delayMs);
      }
    }
  };
  return {
    request() {
      if (stopped) return;
      if (running) again = true;
      else timer ??= setTimeout(() => void fire(), delayMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
