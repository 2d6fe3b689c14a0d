// Calls waiting for approval anywhere in the tenant (`toolCalls` filtered by status), refreshed
// every two seconds. Approve, or reject with a reason.
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { JsonView } from '../components/JsonView.js';
import { RoleButton } from '../components/RoleButton.js';
import { time } from '../components/Status.js';
import { navigate } from '../data/router.js';
import { ApproveCallDocument, AwaitingApprovalDocument, RejectCallDocument } from '../gql/graphql.js';

const REFRESH_MS = 2000;

export function ApprovalsView() {
  const [{ data, error }, refetch] = useQuery({ query: AwaitingApprovalDocument, variables: { first: 100 }, requestPolicy: 'network-only' });
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const waiting = (data?.toolCalls.nodes ?? []).map((call) => ({ ...call, batchId: call.batch.batchId }));
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {error ? <p role="alert">{error.message}</p> : null}
      <p role="status">{waiting.length === 0 ? 'Nothing waits for approval.' : `${waiting.length} call${waiting.length === 1 ? '' : 's'} waiting for approval`}</p>
      <ul className="approvals">
        {waiting.map((call) => (
          <ApprovalCard key={`${call.session.sessionId}/${call.callId}`} call={call} onDecided={() => refetch({ requestPolicy: 'network-only' })} />
        ))}
      </ul>
    </section>
  );
}

function ApprovalCard({
  call,
  onDecided,
}: {
  call: { callId: string; tool: string; args: unknown; queuedAt: string; batchId: string; session: { sessionId: string; title?: string | null } };
  onDecided(): void;
}) {
  const [, approve] = useMutation(ApproveCallDocument);
  const [, reject] = useMutation(RejectCallDocument);
  const [reason, setReason] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const sessionId = call.session.sessionId;
  const decide = async (kind: 'approve' | 'reject') => {
    const result = kind === 'approve' ? await approve({ sessionId, callId: call.callId }) : await reject({ sessionId, callId: call.callId, reason });
    const answer = result.data ? Object.values(result.data)[0] : null;
    if (answer && 'message' in answer) setMessage(answer.message);
    else if (result.error) setMessage(result.error.message);
    onDecided();
  };
  const reasonId = `reason-${sessionId}-${call.callId}`;
  return (
    <li className="approval" data-call-id={call.callId}>
      <div>
        <strong>{call.tool}</strong> <span className="mono">{call.callId}</span> · waiting since {time(call.queuedAt)} · session{' '}
        <a
          href={`/sessions/${sessionId}?batch=${call.batchId}`}
          onClick={(event) => {
            event.preventDefault();
            navigate(`/sessions/${sessionId}?batch=${call.batchId}`);
          }}
        >
          {call.session.title || sessionId.slice(0, 8)}
        </a>
      </div>
      <JsonView value={call.args} />
      <div className="decide">
        <RoleButton role="APPROVER" type="button" onClick={() => void decide('approve')} aria-label={`Approve ${call.callId}`}>
          Approve
        </RoleButton>
        <label htmlFor={reasonId}>Reason</label>
        <input id={reasonId} value={reason} onChange={(event) => setReason(event.target.value)} placeholder="why not" />
        <RoleButton role="APPROVER" type="button" disabled={!reason.trim()} onClick={() => void decide('reject')} aria-label={`Reject ${call.callId}`}>
          Reject
        </RoleButton>
      </div>
      {message ? <p role="alert">{message}</p> : null}
    </li>
  );
}
