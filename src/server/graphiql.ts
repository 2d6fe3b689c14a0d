// The GraphiQL page: its assets come from toolrun itself (no CDN, so it works offline and behind
// firewalls), and the development key is put into it only where no other machine can load it.
import ipaddr from 'ipaddr.js';
import type { GraphiQLOptions } from 'graphql-yoga';
import type { Config } from '../config.js';

/**
 * The page, with GraphiQL's whole bundle inlined. The bundle (about 10 MB of script, 30 MB of heap
 * once loaded) is imported the first time the page is asked for: most processes never serve it.
 */
export async function renderGraphiQL(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
  return render(options);
}

/**
 * Whether the page may carry an API key: only in development, and only when the server listens on
 * a loopback address (elsewhere any machine that reaches the port would read the key).
 */
export function mayEmbedApiKey(config: Pick<Config, 'NODE_ENV' | 'HOST'>): boolean {
  if (config.NODE_ENV !== 'development') return false;
  const host = config.HOST.replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

const DEFAULT_QUERY = `# toolrun's GraphQL API. Run this (▶) to list the tools your key can call; the README
# has a whole session (createSession, executeToolBatch, the toolCallEvents subscription).
query Tools {
  tools {
    name
    kind
    description
  }
}
`;

export function graphiqlOptions(config: Pick<Config, 'NODE_ENV' | 'HOST'>, apiKey: string | undefined): GraphiQLOptions {
  return {
    title: 'toolrun',
    defaultQuery: DEFAULT_QUERY,
    subscriptionsProtocol: 'SSE',
    ...(apiKey && mayEmbedApiKey(config) ? { headers: JSON.stringify({ Authorization: `Bearer ${apiKey}` }) } : {}),
  };
}
