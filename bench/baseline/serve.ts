// The child side of the bench's IPC: announce readiness, answer commands, and exit with the bench
// (when the IPC channel closes, the bench is gone).
type Handler = (args: never) => Promise<unknown>;

export function serve(ready: unknown, handlers: Record<string, Handler>, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    void close().finally(() => process.exit(0));
  };
  process.on('message', (message: { id: number; command: string; args: unknown }) => {
    const handler = handlers[message.command];
    if (!handler) {
      process.send?.({ id: message.id, error: `unknown command ${message.command}` });
      return;
    }
    handler(message.args as never).then(
      (result) => process.send?.({ id: message.id, result }),
      (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  process.on('disconnect', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.send?.({ ready });
}
