// Authentication and the rate limit point of an HTTP request begin as soon as its headers are read,
// so the key lookup and the round trip to Redis overlap the body's reading, parsing and validation
// instead of following them. The context still decides: a refusal surfaces there, after any parse
// or validation error, as before; a request refused before its context was counted all the same.
import type { Plugin } from 'graphql-yoga';

export interface EarlyAdmission<T> {
  plugin: Plugin;
  /** The admission begun for `request`, or one begun now. */
  of(request: Request): Promise<T>;
}

export function useEarlyAdmission<T>(endpoint: string, admit: (request: Request) => Promise<T>): EarlyAdmission<T> {
  const begun = new WeakMap<Request, Promise<T>>();
  return {
    plugin: {
      onRequest({ request, url }) {
        if (url.pathname !== endpoint || request.method === 'OPTIONS') return;
        const admission = admit(request);
        // Awaited by the context; a request refused before it (a parse error) must not leave it unhandled.
        admission.catch(() => undefined);
        begun.set(request, admission);
      },
    },
    of(request) {
      return begun.get(request) ?? admit(request);
    },
  };
}
