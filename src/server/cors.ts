// Cross-origin requests: only the origins of CORS_ORIGINS get CORS headers; every other page's
// browser keeps the answers from it (same origin only by default).
import type { CORSOptions } from 'graphql-yoga';

export function corsPolicy(allowed: readonly string[]): (request: Request) => CORSOptions {
  const origins = new Set(allowed);
  return (request) => {
    const origin = request.headers.get('origin');
    if (!origin || !origins.has(origin)) return false;
    return {
      origin: [origin],
      methods: ['GET', 'POST', 'OPTIONS'],
      allowedHeaders: ['authorization', 'content-type', 'accept', 'x-request-id'],
      exposedHeaders: ['x-request-id'],
      // Keys travel in the Authorization header, never in cookies.
      credentials: false,
      maxAge: 600,
    };
  };
}
