import type { Plugin } from 'graphql-yoga';

function tooLarge(maxBytes: number, Response: typeof globalThis.Response): Response {
  return new Response(JSON.stringify({ errors: [{ message: `Request body exceeds ${maxBytes} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }] }), {
    status: 413,
    headers: { 'content-type': 'application/json' },
  });
}

/** The body, or null as soon as more than `maxBytes` arrived (the rest is not read). */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Refuses request bodies over `maxBytes`: at once when the declared length says so, otherwise on
 * the bytes actually read (a chunked body has no declared length), before any of it is parsed. A
 * body with a declared length is parsed as yoga reads it: Node's HTTP parser never reads past the
 * declared length (and refuses a request that also says `Transfer-Encoding`), so it is within the limit.
 */
export function useRequestSizeLimit(maxBytes: number): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const length = Number(request.headers.get('content-length') ?? '0');
      if (length > maxBytes) endResponse(tooLarge(maxBytes, fetchAPI.Response));
    },
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser || !request.body || /^\d+$/.test(request.headers.get('content-length') ?? '')) return;
      const parse = requestParser;
      setRequestParser(async (incoming) => {
        if (!incoming.body) return parse(incoming);
        const bytes = await readAtMost(incoming.body, maxBytes);
        if (bytes === null) return tooLarge(maxBytes, fetchAPI.Response);
        return parse(new fetchAPI.Request(incoming.url, { method: incoming.method, headers: incoming.headers, body: bytes }));
      });
    },
  };
}
