// The tool catalogue (parameter schema, hints, policy) and a "try it" form generated from each
// tool's schema: it creates a session, runs a batch of N calls and opens it live.
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { JsonView } from '../components/JsonView.js';
import { RoleButton } from '../components/RoleButton.js';
import { argumentsOf, type JsonSchema, SchemaForm } from '../components/SchemaForm.js';
import { visibleText } from '../components/visible-text.js';
import { errorText, refusalOf, useReadAgainWhileAway } from '../data/connection.js';
import { navigate } from '../data/router.js';
import { CreateSessionDocument, ExecuteBatchDocument, type ToolsQuery, ToolsDocument } from '../gql/graphql.js';

type Tool = ToolsQuery['tools'][number];

export function ToolsView() {
  const [{ data, error }, refetch] = useQuery({ query: ToolsDocument, variables: {} });
  useReadAgainWhileAway(error, refetch);
  const [selected, setSelected] = useState<string | null>(null);
  const tools = data?.tools ?? [];
  const tool = tools.find((entry) => entry.name === selected);
  return (
    <section aria-labelledby="tools-title" className="tools-view">
      <h1 id="tools-title">Tools</h1>
      {error ? <p role="alert">{errorText(error)}</p> : null}
      <div className="split">
        <ul className="tool-list" aria-label="Tools">
          {tools.map((entry) => (
            <li key={entry.name}>
              <button type="button" aria-pressed={entry.name === selected} onClick={() => setSelected(entry.name)} data-tool={entry.name}>
                <strong>{visibleText(entry.displayName)}</strong> <span className="mono subtle">{entry.name}</span>
                <br />
                <span className="subtle">
                  {entry.kind.toLowerCase()} · {entry.policy === 'REQUIRES_APPROVAL' ? 'needs approval' : 'auto'} · {entry.scheduling.toLowerCase()}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {tool ? <ToolDetail key={tool.name} tool={tool} /> : <p>Choose a tool to see its schema and try it.</p>}
      </div>
    </section>
  );
}

function ToolDetail({ tool }: { tool: Tool }) {
  // On a narrow screen the detail is below the list: bring it into view when a tool is chosen.
  const article = useRef<HTMLElement>(null);
  useEffect(() => {
    const box = article.current?.getBoundingClientRect();
    if (box && box.top > window.innerHeight) article.current?.scrollIntoView({ block: 'start' });
  }, []);
  const hints = Object.entries(tool.hints)
    .filter(([key, on]) => key !== '__typename' && on === true)
    .map(([key]) => key);
  return (
    <article className="tool-detail" aria-labelledby="tool-title" ref={article}>
      <h2 id="tool-title">{visibleText(tool.displayName)}</h2>
      <p>{visibleText(tool.description)}</p>
      <dl className="facts">
        <dt>Name</dt>
        <dd className="mono">{tool.name}</dd>
        <dt>Kind</dt>
        <dd>{tool.kind.toLowerCase()}</dd>
        <dt>Policy</dt>
        <dd>{tool.policy === 'REQUIRES_APPROVAL' ? 'requires approval' : 'runs automatically'}</dd>
        <dt>Hints</dt>
        <dd>{hints.length ? hints.join(', ') : 'none'}</dd>
        <dt>Timeout</dt>
        <dd>{tool.timeoutMs} ms</dd>
        <dt>Attempts</dt>
        <dd>{tool.retry.maxAttempts}</dd>
      </dl>
      <TryIt tool={tool} />
      <details>
        <summary>Parameter schema</summary>
        <JsonView value={tool.parametersSchema} />
      </details>
    </article>
  );
}

function TryIt({ tool }: { tool: Tool }) {
  const [args, setArgs] = useState<Record<string, unknown>>({});
  // What is typed, as typed; the batch size is it clamped to 1..1000 (when the field is left, and at submission).
  const [countText, setCountText] = useState('1');
  const count = Math.max(1, Math.min(1000, Math.floor(Number(countText)) || 1));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [, createSession] = useMutation(CreateSessionDocument);
  const [, execute] = useMutation(ExecuteBatchDocument);
  const run = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const creation = await createSession({ title: `Try ${tool.name}` });
      const created = creation.data?.createSession;
      if (created?.__typename !== 'Session') return setProblem(`Creating a session failed: ${refusalOf(creation) ?? 'no answer'}`);
      const calls = Array.from({ length: count }, () => ({ tool: tool.name, args: argumentsOf(tool.parametersSchema as JsonSchema, args) }));
      const result = await execute({ sessionId: created.sessionId, calls });
      const batch = result.data?.executeToolBatch;
      if (batch?.__typename === 'ToolBatch') navigate(`/sessions/${created.sessionId}?batch=${encodeURIComponent(batch.batchId)}`);
      else setProblem(batch && 'message' in batch ? `${batch.code}: ${batch.message}` : `The batch was not accepted: ${refusalOf(result) ?? 'no answer'}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="try-it" onSubmit={(event) => void run(event)} aria-label={`Try ${tool.name}`}>
      <h3>Try it</h3>
      <SchemaForm schema={tool.parametersSchema as JsonSchema} value={args} onChange={setArgs} />
      <div className="field">
        <label htmlFor="try-count">Calls in the batch</label>
        <input id="try-count" type="number" min={1} max={1000} value={countText} onChange={(event) => setCountText(event.target.value)} onBlur={() => setCountText(String(count))} />
      </div>
      <RoleButton role="SUBMITTER" type="submit" disabled={busy}>
        Run batch
      </RoleButton>
      {problem ? <p role="alert">{problem}</p> : null}
    </form>
  );
}
