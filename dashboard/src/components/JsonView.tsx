// A collapsible JSON tree: objects and arrays open two levels deep, keyboard operable (<details>).
import { visibleText } from './visible-text.js';

export function JsonView({ value, label, depth = 0 }: { value: unknown; label?: string; depth?: number }) {
  const prefix = label === undefined ? null : <span className="json-key">{visibleText(label)}: </span>;
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value;
    return (
      <div className="json-leaf">
        {prefix}
        <span className={`json-${kind}`}>{visibleText(JSON.stringify(value) ?? String(value))}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <details className="json-node" open={depth < 2}>
      <summary>
        {prefix}
        <span className="json-summary">{summary}</span>
      </summary>
      <div className="json-children">
        {entries.map(([key, item]) => (
          <JsonView key={key} label={key} value={item} depth={depth + 1} />
        ))}
      </div>
    </details>
  );
}
