import type { Plugin } from 'graphql-yoga';

/** Refuses request bodies over `maxBytes` (declared length) before they are read. */
export function useRequestSizeLimit(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const length = Number(request.headers.get('content-length') ?? '0');
      if (length > maxBytes) {
        endResponse(
          new fetchAPI.Response(
            JSON.stringify({ errors: [{ message: `Request body exceeds ${maxBytes} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }),
            { status: 413, headers: { 'content-type': 'application/json' } },
          ),
        );
      }
    },
  };
}
