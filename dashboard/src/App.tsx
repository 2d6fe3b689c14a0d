import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Provider } from 'urql';
import { forgetKey, storeKey, storedKey } from './data/auth.js';
import { createLink, type Link, type LinkState, useLinkState } from './data/connection.js';
import { linkTo, useLocation } from './data/router.js';
import { type Role, ViewerContext, type ViewerInfo } from './data/viewer.js';
import { RoleNotes } from './components/RoleButton.js';
import { useDocumentTitle } from './components/document-title.js';
import { ViewerDocument } from './gql/graphql.js';
import { ApprovalsView } from './views/Approvals.js';
import { HealthView } from './views/Health.js';
import { SessionView } from './views/Session.js';
import { SessionsView } from './views/Sessions.js';
import { ToolsView } from './views/Tools.js';

const SIGN_IN_RETRY_MS = 2000;

export function App() {
  const [apiKey, setApiKey] = useState(storedKey);
  const [viewer, setViewer] = useState<ViewerInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A key revoked or expired while signed in (a stream or a request refused): back to sign-in, saying why.
  const signedIn = useRef(false);
  signedIn.current = viewer !== null;
  const refused = useCallback(() => {
    // At sign-in, a refused key is answered by the viewer check below.
    if (!signedIn.current) return;
    forgetKey();
    setViewer(null);
    setApiKey(null);
    setError('This API key was revoked or has expired. Sign in with another key.');
  }, []);
  const link = useMemo(() => (apiKey ? createLink(apiKey, refused) : null), [apiKey, refused]);
  useEffect(() => () => link?.dispose(), [link]);
  useEffect(() => link?.toolrun.onLinkState((state) => state === 'refused' && refused()), [link, refused]);

  // A sign-in that found toolrun away is tried again until it answers (or another key is chosen).
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!link) return;
    let cancelled = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    void link.urql
      .query(ViewerDocument, {}, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        if (cancelled) return;
        if (result.data?.viewer) {
          setViewer({ roles: result.data.viewer.roles.map((role) => role.toUpperCase() as Role), tenantName: result.data.tenantSettings.tenantName });
          setError(null);
        } else {
          const unauthenticated = result.error?.response?.status === 401 || result.error?.graphQLErrors.some((e) => e.extensions.code === 'UNAUTHENTICATED');
          if (unauthenticated) {
            forgetKey();
            setApiKey(null);
          }
          if (unauthenticated) setError('That API key was not accepted.');
          else {
            setError(`toolrun does not answer (${result.error?.message ?? 'no answer'}); trying again…`);
            retry = setTimeout(() => setAttempt((n) => n + 1), SIGN_IN_RETRY_MS);
          }
        }
      });
    return () => {
      cancelled = true;
      clearTimeout(retry);
    };
  }, [link, attempt]);

  if (!link || !apiKey) {
    return (
      <SignIn
        error={error}
        onKey={(key) => {
          storeKey(key);
          setViewer(null);
          setApiKey(key);
        }}
      />
    );
  }
  if (!viewer) {
    return (
      <SigningIn>
        {error ? <p role="alert">{error}</p> : <p>Signing in…</p>}
        <button
          type="button"
          onClick={() => {
            forgetKey();
            setApiKey(null);
            setError(null);
          }}
        >
          Use another key
        </button>
      </SigningIn>
    );
  }
  return (
    <Provider value={link.urql}>
      <ViewerContext.Provider value={viewer}>
        <Shell
          link={link}
          viewer={viewer}
          onSignOut={() => {
            forgetKey();
            setViewer(null);
            setApiKey(null);
          }}
        />
      </ViewerContext.Provider>
    </Provider>
  );
}

function SigningIn({ children }: { children: React.ReactNode }) {
  useDocumentTitle('Signing in');
  return <main className="signin">{children}</main>;
}

function SignIn({ onKey, error }: { onKey(key: string): void; error: string | null }) {
  useDocumentTitle('Sign in');
  const [key, setKey] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim()) onKey(key.trim());
  };
  return (
    <main className="signin">
      <h1>toolrun</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" value={key} onChange={(event) => setKey(event.target.value)} placeholder="trk_…" autoFocus />
        <button type="submit">Sign in</button>
        {error ? <p role="alert">{error}</p> : null}
        <p className="hint">The key stays in this tab (sessionStorage) and is sent only to this toolrun. Make one with `npm run apikey`.</p>
      </form>
    </main>
  );
}

const NAV = [
  { path: '/', label: 'Sessions' },
  { path: '/approvals', label: 'Approvals' },
  { path: '/tools', label: 'Tools' },
  // Not /health: that is the API's liveness check, which a reload or a link would get instead of the
  // page. No page may take a path the API serves (src/server/app.ts).
  { path: '/status', label: 'Health' },
];

/** What the header says of the event streams (nothing while the page follows none). */
const LINK_STATE_TEXT: Record<LinkState, string> = {
  idle: '',
  connecting: '○ connecting',
  live: '● live',
  reconnecting: '⟳ reconnecting…',
  refused: '✕ key refused',
};

function Shell({ link, viewer, onSignOut }: { link: Link; viewer: ViewerInfo; onSignOut(): void }) {
  const { path, params } = useLocation();
  const linkState = useLinkState(link);
  const section = path.startsWith('/sessions/') ? '/' : path;
  // A session's page names itself by the session's title (SessionView).
  const page = NAV.find((item) => item.path === path)?.label ?? 'Page not found';
  useDocumentTitle(path.startsWith('/sessions/') ? null : page);
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header>
        <strong className="brand">toolrun</strong>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <a
              key={item.path}
              href={item.path}
              aria-current={section === item.path ? 'page' : undefined}
              onClick={linkTo(item.path)}
            >
              {item.label}
            </a>
          ))}
        </nav>
        <span className="link-state" role="status" data-link-state={linkState}>
          {LINK_STATE_TEXT[linkState]}
        </span>
        <span className="who">
          {viewer.tenantName} · {viewer.roles.map((role) => role.toLowerCase()).join(', ')}
        </span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="content" tabIndex={-1}>
        <RoleNotes />
        {path.startsWith('/sessions/') ? (
          <SessionView key={path} link={link} sessionId={decodeURIComponent(path.slice('/sessions/'.length))} focusBatch={params.get('batch')} />
        ) : path === '/approvals' ? (
          <ApprovalsView link={link} />
        ) : path === '/tools' ? (
          <ToolsView />
        ) : path === '/status' ? (
          <HealthView />
        ) : path === '/' ? (
          <SessionsView link={link} />
        ) : (
          <NotFound path={path} />
        )}
      </main>
    </div>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        Nothing is at <span className="mono">{path}</span>.{' '}
        <a
          href="/"
          onClick={linkTo('/')}
        >
          Go to the sessions
        </a>
      </p>
    </section>
  );
}
