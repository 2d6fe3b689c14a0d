// A subscription whose result no response format fits (yoga answers 406: an Accept header that
// takes neither text/event-stream nor multipart/mixed) is never read, so its stream would keep the
// key's subscription slot and its watchers forever: it is closed here instead. Registered after
// yoga's own result processors, so it sees whether one took the result.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

export function useUnservedStreams(): Plugin {
  return {
    onResultProcess({ result, resultProcessor }) {
      if (resultProcessor || !isAsyncIterable(result)) return;
      void result[Symbol.asyncIterator]().return?.();
    },
  };
}
