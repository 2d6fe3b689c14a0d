// A `fetch` for clients that take one (the MCP SDK's Streamable HTTP transport) that connects
// through the outbound address guard: IP-literal hosts are checked before connecting and host
// names at connect time by `guardedLookup`, as for HTTP tools. Keep-alive agents of its own,
// closed with `close()`. Request bodies are strings (JSON-RPC messages); redirects are not followed.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { type AddressPolicy, checkHostLiteral, guardedLookup } from './address-guard.js';

export interface GuardedFetch {
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  close(): void;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function guardedFetch(policy: AddressPolicy, who: string): GuardedFetch {
  const lookup = guardedLookup(policy, who);
  const agents = { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
  const fetch = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    checkHostLiteral(url, policy, who);
    if (init.body != null && typeof init.body !== 'string') throw new TypeError('guardedFetch sends string bodies only');
    const body = init.body ?? undefined;
    const method = init.method ?? 'GET';
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const request = (secure ? https : http).request(url, { method, headers, agent: secure ? agents.https : agents.http, signal: init.signal ?? undefined });
      request.on('error', reject);
      request.on('response', (response) => {
        request.removeListener('error', reject);
        request.on('error', () => {});
        const status = response.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) for (const one of [value].flat()) responseHeaders.append(name, one);
        }
        const noBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
        if (noBody) response.resume();
        const stream = noBody ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, statusText: response.statusMessage ?? '', headers: responseHeaders }));
      });
      request.end(body);
    });
  };
  return {
    fetch,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
