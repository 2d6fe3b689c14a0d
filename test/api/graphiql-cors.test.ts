// GraphiQL and CORS: the page is served whole by toolrun (no CDN: no script or style from
// elsewhere); it carries the development key only in development on a loopback HOST; and
// only the origins of CORS_ORIGINS get CORS headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { mayEmbedApiKey } from '../../src/server/graphiql.js';
import { createToolrunYoga } from '../../src/server/yoga.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';

describe('GraphiQL', () => {
  let toolrun: Toolrun;
  beforeAll(async () => {
    toolrun = await startToolrun({ CORS_ORIGINS: 'https://dash.example.com, http://localhost:5173' }, { worker: false });
  });
  afterAll(() => toolrun?.close());

  const page = async (config: Partial<Config>) => {
    const yoga = createToolrunYoga({ ...toolrun.services, config: { ...toolrun.services.config, ...config } }, { graphiqlApiKey: toolrun.apiKey });
    const response = await yoga.fetch(new Request('http://toolrun.test/graphql', { headers: { accept: 'text/html' } }));
    expect(response.status).toBe(200);
    return response.text();
  };

  it('opens on a query of this schema (the tools), not GraphiQL\'s own welcome text', async () => {
    expect(await page({ NODE_ENV: 'production', HOST: '0.0.0.0' })).toContain('"defaultQuery":"# toolrun\'s GraphQL API.');
  });

  it('carries the development key only in development on a loopback HOST', async () => {
    expect(mayEmbedApiKey({ NODE_ENV: 'development', HOST: '127.0.0.1' })).toBe(true);
    expect(mayEmbedApiKey({ NODE_ENV: 'development', HOST: 'localhost' })).toBe(true);
    expect(mayEmbedApiKey({ NODE_ENV: 'development', HOST: '::1' })).toBe(true);
    expect(mayEmbedApiKey({ NODE_ENV: 'development', HOST: '0.0.0.0' })).toBe(false);
    expect(mayEmbedApiKey({ NODE_ENV: 'development', HOST: '192.168.1.5' })).toBe(false);
    expect(mayEmbedApiKey({ NODE_ENV: 'production', HOST: '127.0.0.1' })).toBe(false);
    expect(await page({ NODE_ENV: 'development', HOST: '127.0.0.1' })).toContain(toolrun.apiKey);
    expect(await page({ NODE_ENV: 'development', HOST: '0.0.0.0' })).not.toContain(toolrun.apiKey);
    expect(await page({ NODE_ENV: 'production', HOST: '127.0.0.1' })).not.toContain(toolrun.apiKey);
  });

  it('loads nothing from elsewhere', async () => {
    const html = await page({});
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="https?:/);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|esm\.sh/);
  });
});

describe('CORS', () => {
  let toolrun: Toolrun;
  beforeAll(async () => {
    toolrun = await startToolrun({ CORS_ORIGINS: 'https://dash.example.com,http://localhost:5173' }, { worker: false });
  });
  afterAll(() => toolrun?.close());

  const preflight = (origin: string) =>
    toolrun.fetch('/graphql', { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

  it('answers only the allowed origins, without credentials', async () => {
    const allowed = await preflight('https://dash.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const post = await toolrun.fetch('/graphql', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', authorization: `Bearer ${toolrun.apiKey}` },
      body: JSON.stringify({ query: '{ tools { name } }' }),
    });
    expect(post.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers no origin by default (same origin only)', async () => {
    const plain = await startToolrun({}, { worker: false });
    try {
      const response = await plain.fetch('/graphql', { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
