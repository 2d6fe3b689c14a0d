/** Why a running call's signal fired. Tools reject with it; the runner maps it to an outcome. */
export class CallAbort extends Error {
  override name = 'CallAbort';
  constructor(readonly kind: 'cancelled' | 'timeout' | 'shutdown') {
    super(kind === 'cancelled' ? 'tool call cancelled' : kind === 'timeout' ? 'tool call timed out' : 'worker shutting down');
  }
}
