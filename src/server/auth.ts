import { createGraphQLError } from 'graphql-yoga';
import { bearerToken, type Viewer } from '../domain/tenants/api-keys.js';
import type { Services } from '../services.js';

export function unauthenticated() {
  return createGraphQLError('Missing or invalid API key: send `Authorization: Bearer <key>`', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
  });
}

/** The key of a WebSocket client, from its `connection_init` payload. */
export function tokenFromConnectionParams(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params) return null;
  for (const name of ['authorization', 'Authorization']) {
    const value = params[name];
    if (typeof value === 'string') return bearerToken(value) ?? value;
  }
  const headers = params.headers as Record<string, unknown> | undefined;
  const header = headers?.authorization ?? headers?.Authorization;
  if (typeof header === 'string') return bearerToken(header);
  for (const name of ['apiKey', 'token']) {
    const value = params[name];
    if (typeof value === 'string') return value;
  }
  return null;
}

export async function authenticateRequest(services: Services, request: Request): Promise<Viewer> {
  const viewer = await services.apiKeys.authenticate(bearerToken(request.headers.get('authorization')));
  if (!viewer) throw unauthenticated();
  return viewer;
}
