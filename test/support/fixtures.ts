import { expect } from 'vitest';
import {
  CreateSessionDocument,
  ExecuteToolBatchDocument,
  type ExecuteToolBatchMutationVariables,
  GetToolBatchDocument,
} from '../gql/graphql.js';
import { eventually, type Toolrun } from './toolrun.js';

export async function createSession(app: Pick<Toolrun, 'query'>, apiKey?: string): Promise<string> {
  const result = await app.query(CreateSessionDocument, { title: 'test' }, apiKey);
  if (result.createSession.__typename !== 'Session') throw new Error(`createSession failed: ${JSON.stringify(result)}`);
  return result.createSession.id;
}

export async function submit(app: Pick<Toolrun, 'query'>, variables: ExecuteToolBatchMutationVariables, apiKey?: string) {
  const result = await app.query(ExecuteToolBatchDocument, variables, apiKey);
  return result.executeToolBatch;
}

/** Submits and expects a batch back (not an error). */
export async function submitBatch(app: Pick<Toolrun, 'query'>, variables: ExecuteToolBatchMutationVariables, apiKey?: string) {
  const batch = await submit(app, variables, apiKey);
  if (batch.__typename !== 'ToolBatch') throw new Error(`expected a batch, got ${JSON.stringify(batch)}`);
  return batch;
}

export async function waitForBatch(app: Pick<Toolrun, 'query'>, sessionId: string, batchId: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const { toolBatch } = await app.query(GetToolBatchDocument, { sessionId, batchId });
    return toolBatch?.status === 'COMPLETED' ? toolBatch : null;
  }, timeoutMs);
}

export function outputOf<T extends { output?: unknown }>(call: T | undefined) {
  expect(call).toBeDefined();
  return call!.output as Record<string, unknown> & { __typename: string };
}
