// Status as a word and a symbol, never by colour alone.
const SYMBOLS: Record<string, string> = {
  QUEUED: '◷',
  RUNNING: '▶',
  SUCCEEDED: '✓',
  FAILED: '✕',
  CANCELLED: '⊘',
  CANCELED: '⊘',
  AWAITING_APPROVAL: '⏸',
  PENDING_EXTERNAL: '⇄',
  COMPLETED: '✓',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`status status-${status.toLowerCase()}`} data-status={status}>
      <span aria-hidden="true">{SYMBOLS[status] ?? '•'} </span>
      {status.replaceAll('_', ' ').toLowerCase()}
    </span>
  );
}

export function age(from: string | null | undefined, now: number): string {
  if (!from) return '—';
  const seconds = Math.max(0, Math.round((now - Date.parse(from)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

/** A moment as a time of day, with its date when that is not today ("waiting since 3:34 AM" three days on would mislead). */
export function time(at: string | null | undefined): string {
  if (!at) return '—';
  const moment = new Date(at);
  return moment.toDateString() === new Date().toDateString() ? moment.toLocaleTimeString() : moment.toLocaleString();
}

/**
 * A long generated id cut in the middle, for a list where the whole id is a tooltip: its prefix
 * (`tool-batch:`, `call_`), the first 8 characters and the last 4. Ids made from a UUIDv7 share their
 * first characters (a timestamp) with every id made in the same millisecond; their end is random.
 */
export function shortId(id: string): string {
  const prefix = /^[a-z-]+[:_]/.exec(id)?.[0] ?? '';
  const rest = id.slice(prefix.length);
  return rest.length > 13 ? `${prefix}${rest.slice(0, 8)}…${rest.slice(-4)}` : id;
}
