// Keyset connections: edges with opaque cursors of (order key, id), page info, and a totalCount
// that is counted only when a client selects it. Child lists of many parents load through one
// DataLoader per request and page arguments, so a page of parents costs a fixed number of queries.
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { encodeKeysetCursor, type KeysetPosition, type ListPageRequest, type Page } from '../model/keyset.js';
import type { GraphQLContext } from './context.js';

export interface KeysetConnection<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  count: () => Promise<number>;
}

export function keysetConnection<T>(page: Page<T>, request: ListPageRequest, positionOf: (row: T) => KeysetPosition, count: () => Promise<number>): KeysetConnection<T> {
  const edges = page.rows.map((node) => ({ cursor: encodeKeysetCursor(request.list, positionOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: request.after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    count,
  };
}

/** Positions of rows ordered by a time, then id. */
export const byTime =
  <T extends { id: string }>(key: (row: T) => Date) =>
  (row: T): KeysetPosition => ({ key: key(row).toISOString(), id: row.id });

const loaders = createContextCache((_context: GraphQLContext) => new Map<string, DataLoader<string, unknown>>());

/**
 * A per-request DataLoader named `name` (one per distinct page arguments): child lists or counts of
 * all the parents a response holds are loaded together.
 */
export function requestLoader<V>(context: GraphQLContext, name: string, load: (keys: readonly string[]) => Promise<V[]>): DataLoader<string, V> {
  const cache = loaders(context);
  let loader = cache.get(name) as DataLoader<string, V> | undefined;
  if (!loader) {
    loader = new DataLoader<string, V>(load);
    cache.set(name, loader as DataLoader<string, unknown>);
  }
  return loader;
}
