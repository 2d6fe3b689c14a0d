// Calls waiting for approval anywhere in the tenant, live: a snapshot (`toolCalls` filtered by
// status), then the tenant's events from the cursor read before it. A call appears with its
// ToolCallAwaitingApproval and leaves with its ToolCallApproved or ToolCallCompleted (rejected,
// cancelled), whoever decided it and wherever. Approve, or reject with a reason. The cards that have
// waited longest are drawn, SHOWN_STEP more on each "Show more"; the count says how many wait.
import { useEffect, useRef, useState } from 'react';
import { useMutation } from 'urql';
import { JsonView } from '../components/JsonView.js';
import { RoleButton } from '../components/RoleButton.js';
import { visibleText } from '../components/visible-text.js';
import { time } from '../components/Status.js';
import { type Link, READ_RETRY_MS, refusalOf } from '../data/connection.js';
import { linkTo } from '../data/router.js';
import { useViewer } from '../data/viewer.js';
import { coalesced, followTenant } from '../data/tenant-feed.js';
import { ApproveCallDocument, AwaitingApprovalDocument, type AwaitingApprovalQuery, type EventType, RejectCallDocument, SessionTitlesDocument } from '../gql/graphql.js';

const INBOX_EVENTS: EventType[] = ['ToolCallAwaitingApproval', 'ToolCallApproved', 'ToolCallCompleted'];
/** The inbox reads pages of 100 (the list's largest), newest first, up to this many calls. */
const PAGE_SIZE = 100;
const INBOX_LIMIT = 2000;
/** Cards drawn at first, and added by each "Show more" (2,000 cards took a third of a second to draw). */
const SHOWN_STEP = 200;

interface Waiting {
  callId: string;
  tool: string;
  args: unknown;
  queuedAt: string;
  batchId: string;
  /** The session's Relay id (what events carry). */
  sessionNodeId: string;
  /** The session's raw id and title: from the snapshot, or read after the call's event. */
  session: { sessionId: string; title?: string | null } | null;
}

const keyOf = (sessionNodeId: string, callId: string) => `${sessionNodeId}/${callId}`;

const waitingOf = (call: AwaitingApprovalQuery['toolCalls']['nodes'][number]): Waiting => ({
  callId: call.callId,
  tool: call.tool,
  args: call.args,
  queuedAt: call.queuedAt,
  batchId: call.batch.batchId,
  sessionNodeId: call.session.id,
  session: call.session,
});

export function ApprovalsView({ link }: { link: Link }) {
  const [waiting, setWaiting] = useState<Map<string, Waiting> | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Calls waiting beyond INBOX_LIMIT when the inbox was read (the oldest are shown first, these are not). */
  const [unread, setUnread] = useState(0);
  const unreadNow = useRef(0);
  unreadNow.current = unread;
  /** Decisions the server refused whose card left meanwhile (someone else decided first). */
  const [notices, setNotices] = useState<string[]>([]);
  /** How many cards are drawn, the longest waiting first. */
  const [shownCount, setShownCount] = useState(SHOWN_STEP);

  useEffect(() => {
    setWaiting(null);
    /** The waiting calls, or null when toolrun did not answer. */
    const readInbox = async () => {
      const calls: AwaitingApprovalQuery['toolCalls']['nodes'] = [];
      let after: string | null = null;
      for (;;) {
        const answer = await link.urql.query(AwaitingApprovalDocument, { first: PAGE_SIZE, after }, { requestPolicy: 'network-only' }).toPromise();
        if (!answer.data) {
          setError(answer.error?.message ?? 'toolrun did not answer');
          return null;
        }
        setError(null);
        const page: AwaitingApprovalQuery['toolCalls'] = answer.data.toolCalls;
        calls.push(...page.nodes);
        if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor || calls.length >= INBOX_LIMIT) {
          setUnread(Math.max(0, page.totalCount - calls.length));
          return calls;
        }
        after = page.pageInfo.endCursor;
      }
    };
    // The sessions the inbox knows (by Relay id): a card added by an event takes its session's raw id
    // and title from here, or they are read for it (its event carries the Relay id only).
    const sessions = new Map<string, { sessionId: string; title?: string | null }>();
    const known = (calls: AwaitingApprovalQuery['toolCalls']['nodes']) => {
      for (const call of calls) sessions.set(call.session.id, call.session);
    };
    const unknownSessions = new Set<string>();
    const titles = coalesced(async () => {
      const ids = [...unknownSessions];
      unknownSessions.clear();
      if (ids.length === 0) return;
      const answer = await link.urql.query(SessionTitlesDocument, { ids }, { requestPolicy: 'network-only' }).toPromise();
      if (!answer.data) {
        for (const id of ids) unknownSessions.add(id);
        setTimeout(() => titles.request(), READ_RETRY_MS);
        return;
      }
      for (const node of answer.data.nodes) if (node?.__typename === 'Session') sessions.set(node.id, node);
      setWaiting((current) => {
        if (!current) return current;
        const next = new Map(current);
        for (const [key, card] of next) if (!card.session && sessions.has(card.sessionNodeId)) next.set(key, { ...card, session: sessions.get(card.sessionNodeId)! });
        return next;
      });
    }, 100);
    // Once decisions make room under INBOX_LIMIT, the calls that did not fit are read in.
    let decidedDuringRead = new Set<string>();
    const details = coalesced(async () => {
      decidedDuringRead = new Set();
      const calls = await readInbox();
      if (!calls) return;
      known(calls);
      setWaiting((current) => {
        if (!current) return current;
        const next = new Map(current);
        for (const call of calls) {
          const key = keyOf(call.session.id, call.callId);
          const card = next.get(key);
          if (card && !card.session) next.set(key, { ...card, session: call.session });
          // Read as waiting, but its decision's event came after the read began: gone, not back.
          else if (!card && !decidedDuringRead.has(key)) next.set(key, waitingOf(call));
        }
        return next;
      });
    }, 100);
    const stop = followTenant(link, INBOX_EVENTS, {
      load: async () => {
        const calls = await readInbox();
        if (!calls) return false;
        known(calls);
        setWaiting(new Map(calls.map((call) => [keyOf(call.session.id, call.callId), waitingOf(call)])));
        return true;
      },
      onUnanswered: setError,
      onEvents: (events) => {
        // Noted at once (a state updater may run later): a read under way must not bring these back.
        const decided = events.filter((event) => 'callId' in event && event.__typename !== 'ToolCallAwaitingApproval');
        for (const event of decided) if ('callId' in event) decidedDuringRead.add(keyOf(event.sessionId, event.callId));
        for (const event of events) if (event.__typename === 'ToolCallAwaitingApproval' && !sessions.has(event.sessionId)) unknownSessions.add(event.sessionId);
        setWaiting((current) => {
          const next = new Map(current ?? []);
          for (const event of events) {
            if (!('callId' in event)) continue;
            const key = keyOf(event.sessionId, event.callId);
            if (event.__typename === 'ToolCallAwaitingApproval') {
              if (next.has(key)) continue;
              next.set(key, { callId: event.callId, tool: event.tool, args: event.args, queuedAt: event.at, batchId: event.batchId, sessionNodeId: event.sessionId, session: sessions.get(event.sessionId) ?? null });
            } else {
              next.delete(key);
            }
          }
          return next;
        });
        if (unknownSessions.size > 0) titles.request();
        if (decided.length > 0 && unreadNow.current > 0) details.request();
      },
    });
    return () => {
      stop();
      titles.stop();
      details.stop();
    };
  }, [link]);

  const waitingCards = [...(waiting?.values() ?? [])].sort((a, b) => a.queuedAt.localeCompare(b.queuedAt));
  const cards = waitingCards.slice(0, shownCount);
  const total = waitingCards.length + unread;
  // A card that held the focus leaves when its decision's event arrives: the focus goes on to the
  // card that took its place (or the one before it), so a keyboard user decides one after another.
  const list = useRef<HTMLUListElement>(null);
  const focusedCard = useRef<number | null>(null);
  useEffect(() => {
    const items = list.current?.querySelectorAll<HTMLElement>('li.approval') ?? [];
    if (focusedCard.current === null || document.activeElement !== document.body || items.length === 0) return;
    items[Math.min(focusedCard.current, items.length - 1)]?.querySelector<HTMLElement>('button:not([disabled])')?.focus();
  });
  const trackFocus = (event: React.FocusEvent<HTMLUListElement>) => {
    const card = (event.target as HTMLElement).closest('li.approval');
    focusedCard.current = card ? [...event.currentTarget.querySelectorAll('li.approval')].indexOf(card) : null;
  };
  // Focus that moves elsewhere on the page ends it; focus lost with its card (to no element) does not.
  const leaveFocus = (event: React.FocusEvent<HTMLUListElement>) => {
    if (event.relatedTarget && !event.currentTarget.contains(event.relatedTarget as Node)) focusedCard.current = null;
  };
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {error ? <p role="alert">{error}</p> : null}
      <p role="status">
        {waiting === null
          ? 'Loading…'
          : total === 0
            ? 'Nothing waits for approval.'
            : `${total} call${total === 1 ? '' : 's'} waiting for approval${cards.length < total ? ` (the ${cards.length} that have waited longest shown)` : ''}`}
      </p>
      {notices.map((notice) => (
        <p role="alert" key={notice}>
          {notice}
        </p>
      ))}
      <ul className="approvals" ref={list} onFocus={trackFocus} onBlur={leaveFocus}>
        {cards.map((call) => (
          <ApprovalCard key={keyOf(call.sessionNodeId, call.callId)} call={call} onRefused={(message) => setNotices((current) => [...current.filter((entry) => entry !== message), message].slice(-5))} />
        ))}
      </ul>
      {waitingCards.length > cards.length ? (
        <button type="button" onClick={() => setShownCount(cards.length + SHOWN_STEP)}>
          Show {Math.min(SHOWN_STEP, waitingCards.length - cards.length)} more
        </button>
      ) : null}
    </section>
  );
}

/** A waiting call; it leaves the inbox when the event of its decision arrives. */
function ApprovalCard({ call, onRefused }: { call: Waiting; onRefused(message: string): void }) {
  const [, approve] = useMutation(ApproveCallDocument);
  const [, reject] = useMutation(RejectCallDocument);
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const mayDecide = useViewer().roles.includes('APPROVER');
  // A refusal the card had no time to show outlives it (the decision someone else made removes it):
  // it moves above the list. One the card showed was read there, and does not come back.
  const mounted = useRef(true);
  const refusalRef = useRef<string | null>(null);
  useEffect(() => {
    if (message) refusalRef.current = null;
  }, [message]);
  useEffect(
    () => () => {
      mounted.current = false;
      if (refusalRef.current) onRefused(refusalRef.current);
    },
    [],
  );
  const decide = async (kind: 'approve' | 'reject') => {
    refusalRef.current = null;
    setMessage(null);
    const target = { sessionId: call.sessionNodeId, callId: call.callId };
    const result = kind === 'approve' ? await approve(target) : await reject({ ...target, reason });
    // A typed refusal, or that toolrun did not answer (then nothing was decided: the card stays to try again).
    const refusal = refusalOf(result);
    if (refusal === null) return;
    const text = `${kind === 'approve' ? 'Approving' : 'Rejecting'} ${call.callId} ${result.error?.networkError ? 'failed' : 'was refused'}: ${refusal}`;
    refusalRef.current = text;
    if (mounted.current) setMessage(refusal);
    else onRefused(text);
  };
  const reasonId = `reason-${call.sessionNodeId}-${call.callId}`;
  const sessionId = call.session?.sessionId;
  return (
    <li className="approval" data-call-id={call.callId}>
      <div>
        <strong>{visibleText(call.tool)}</strong> <span className="mono">{call.callId}</span> · waiting since {time(call.queuedAt)} · session{' '}
        {sessionId ? (
          <a
            href={`/sessions/${sessionId}?batch=${call.batchId}`}
            onClick={linkTo(`/sessions/${sessionId}?batch=${call.batchId}`)}
          >
            {visibleText(call.session?.title || sessionId.slice(0, 8))}
          </a>
        ) : (
          '…'
        )}
      </div>
      <JsonView value={call.args} />
      <div className="decide">
        <RoleButton role="APPROVER" type="button" onClick={() => void decide('approve')} aria-label={`Approve ${call.callId}`}>
          Approve
        </RoleButton>
        <label htmlFor={reasonId}>Reason</label>
        <input
          id={reasonId}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
          onKeyDown={(event) => {
            // Enter rejects as the Reject button does: only for a key that may (it is disabled otherwise).
            if (event.key === 'Enter' && reason.trim() && mayDecide) void decide('reject');
          }}
          placeholder="why not"
        />
        <RoleButton role="APPROVER" type="button" disabled={!reason.trim()} onClick={() => void decide('reject')} aria-label={`Reject ${call.callId}`}>
          Reject
        </RoleButton>
      </div>
      {message ? <p role="alert">{message}</p> : null}
    </li>
  );
}
