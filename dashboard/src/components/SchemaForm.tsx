// A form generated from a tool's JSON schema (its top-level properties): text, number, checkbox
// and select inputs, JSON for anything nested. Values are kept as the arguments object.
import { useId, useState } from 'react';
import { visibleText } from './visible-text.js';

interface Property {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

export interface JsonSchema {
  properties?: Record<string, Property>;
  required?: string[];
}

/** The arguments a form's values stand for: a required checkbox left alone is false, as it shows. */
export function argumentsOf(schema: JsonSchema, value: Record<string, unknown>): Record<string, unknown> {
  const args = { ...value };
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name];
    const type = Array.isArray(property?.type) ? property.type.find((t) => t !== 'null') : property?.type;
    if (type === 'boolean' && !property?.enum && args[name] === undefined) args[name] = property?.default === true;
  }
  return args;
}

export function SchemaForm({ schema, value, onChange }: { schema: JsonSchema; value: Record<string, unknown>; onChange(value: Record<string, unknown>): void }) {
  const base = useId();
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p>This tool takes no arguments.</p>;
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  return (
    <div className="schema-form">
      {properties.map(([name, property]) => {
        const id = `${base}-${name}`;
        const required = schema.required?.includes(name) ?? false;
        const type = Array.isArray(property.type) ? property.type.find((t) => t !== 'null') : property.type;
        const current = value[name];
        const label = (
          <label htmlFor={id}>
            {visibleText(name)}
            {required ? ' *' : ''}
          </label>
        );
        const helpId = property.description ? `${id}-help` : undefined;
        const help = property.description ? <small id={helpId}>{visibleText(property.description)}</small> : null;
        let input;
        if (property.enum) {
          // The empty choice sends nothing: the tool's default, or, for a required parameter without one,
          // no choice yet (the browser keeps the form until one is made).
          const unchosen = property.default !== undefined ? `(default: ${visibleText(String(property.default))})` : required ? '(choose one)' : '(none)';
          input = (
            <select
              id={id}
              required={required && property.default === undefined}
              aria-describedby={helpId}
              value={current === undefined ? '' : JSON.stringify(current)}
              onChange={(event) => set(name, event.target.value === '' ? undefined : JSON.parse(event.target.value))}
            >
              <option value="">{unchosen}</option>
              {property.enum.map((option) => (
                <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
                  {visibleText(String(option))}
                </option>
              ))}
            </select>
          );
        } else if (type === 'boolean') {
          // Shows what the tool gets: the value set, else its default; a required one left alone is sent as false (argumentsOf).
          input = <input id={id} type="checkbox" aria-describedby={helpId} checked={typeof current === 'boolean' ? current : property.default === true} onChange={(event) => set(name, event.target.checked)} />;
        } else if (type === 'integer' || type === 'number') {
          input = (
            <input
              id={id}
              type="number"
              required={required}
              aria-describedby={helpId}
              step={type === 'integer' ? 1 : 'any'}
              min={property.minimum}
              max={property.maximum}
              placeholder={property.default !== undefined ? String(property.default) : undefined}
              value={typeof current === 'number' ? current : ''}
              onChange={(event) => set(name, event.target.value === '' ? undefined : Number(event.target.value))}
            />
          );
        } else if (type === 'string') {
          input = (
            <input
              id={id}
              type="text"
              required={required}
              aria-describedby={helpId}
              placeholder={typeof property.default === 'string' ? property.default : undefined}
              value={typeof current === 'string' ? current : ''}
              onChange={(event) => set(name, event.target.value === '' ? undefined : event.target.value)}
            />
          );
        } else {
          input = <JsonInput id={id} value={current} describedBy={helpId} onChange={(next) => set(name, next)} />;
        }
        return (
          <div className="field" key={name}>
            {label}
            {input}
            {help}
          </div>
        );
      })}
    </div>
  );
}

function JsonInput({ id, value, describedBy, onChange }: { id: string; value: unknown; describedBy?: string; onChange(value: unknown): void }) {
  // Text that is not JSON keeps the form from being sent (its validity) and says so beside the field;
  // emptied, the field is no argument and nothing is wrong with it.
  const [invalid, setInvalid] = useState(false);
  const problemId = `${id}-problem`;
  return (
    <>
      <textarea
        id={id}
        rows={3}
        defaultValue={value === undefined ? '' : JSON.stringify(value, null, 2)}
        placeholder="JSON"
        aria-invalid={invalid || undefined}
        aria-describedby={[invalid ? problemId : null, describedBy].filter(Boolean).join(' ') || undefined}
        onChange={(event) => {
          const text = event.target.value.trim();
          let parsed: { value: unknown } | null = { value: undefined };
          if (text) {
            try {
              parsed = { value: JSON.parse(text) };
            } catch {
              parsed = null;
            }
          }
          event.target.setCustomValidity(parsed ? '' : 'Not valid JSON');
          setInvalid(!parsed);
          if (parsed) onChange(parsed.value);
        }}
      />
      {invalid ? (
        <small id={problemId} className="field-problem">
          Not valid JSON
        </small>
      ) : null}
    </>
  );
}
