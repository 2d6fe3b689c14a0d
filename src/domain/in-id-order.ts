import { NotFoundError } from '../model/errors.js';

/** Rows in the order of `ids`, with a NotFoundError where one is missing: what a DataLoader expects. */
export function inIdOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[], resource: string): Array<T | NotFoundError> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? new NotFoundError(resource, id));
}
