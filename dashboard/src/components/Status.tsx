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

export function time(at: string | null | undefined): string {
  return at ? new Date(at).toLocaleTimeString() : '—';
}
