// Common steps of API tests: sessions, batches, calls, and what they return.
import { expect } from 'vitest';
import { ToolFailureError } from '../../src/model/outcome.js';
import { encodeEventCursor } from '../../src/realtime/cursors.js';
import { localId } from '../../src/resolvers/global-ids.js';
import {
  CreateSessionDocument,
  ExecuteToolBatchDocument,
  type ExecuteToolBatchMutationVariables,
  GetToolBatchDocument,
  GetWaitingCallDocument,
} from '../gql/graphql.js';
import type { GraphQLClient, Toolrun } from './toolrun.js';
import { eventually } from './wait.js';

type Client = Pick<GraphQLClient, 'query'>;

/** Creates a session; returns its GraphQL id. */
export async function createSession(app: Client, apiKey?: string): Promise<string> {
  return (await newSession(app, apiKey)).id;
}

/** A session: its GraphQL id (for the API) and its row id (for cursors and SQL). */
export async function newSession(app: Client, apiKey?: string): Promise<{ id: string; rowId: string }> {
  const result = await app.query(CreateSessionDocument, { title: 'test' }, apiKey);
  if (result.createSession.__typename !== 'Session') throw new Error(`createSession failed: ${JSON.stringify(result)}`);
  return { id: result.createSession.id, rowId: result.createSession.sessionId };
}

/** The cursor before a session's first event: a subscription from it sees everything, with no race. */
export function fromStart(sessionId: string): string {
  return encodeEventCursor(localId(sessionId, 'Session'), 0);
}

export async function submit(app: Client, variables: ExecuteToolBatchMutationVariables, apiKey?: string) {
  const result = await app.query(ExecuteToolBatchDocument, variables, apiKey);
  return result.executeToolBatch;
}

/** Submits and expects a batch back (not an error). */
export async function submitBatch(app: Client, variables: ExecuteToolBatchMutationVariables, apiKey?: string) {
  const batch = await submit(app, variables, apiKey);
  if (batch.__typename !== 'ToolBatch') throw new Error(`expected a batch, got ${JSON.stringify(batch)}`);
  return batch;
}

export async function waitForBatch(app: Client, sessionId: string, batchId: string, timeoutMs = 15_000) {
  return eventually(async () => {
    const { toolBatch } = await app.query(GetToolBatchDocument, { sessionId, batchId });
    return toolBatch?.status === 'COMPLETED' ? toolBatch : null;
  }, timeoutMs);
}

export async function callOf(app: Client, callId: string, sessionId: string) {
  const { toolCall } = await app.query(GetWaitingCallDocument, { callId, sessionId });
  if (!toolCall) throw new Error(`no call ${callId}`);
  return toolCall;
}

export function waitForStatus(app: Client, callId: string, sessionId: string, status: string, timeoutMs = 10_000) {
  return eventually(async () => {
    const call = await callOf(app, callId, sessionId);
    return call.status === status ? call : null;
  }, timeoutMs);
}

/**
 * Waits until the serial lane of a batch has no job left: whatever it could run has run, so a
 * serial call that is still waiting now stays so until someone lets the lane go on.
 */
export async function laneSettled(app: Pick<Toolrun, 'services'>, batchId: string): Promise<void> {
  await eventually(
    async () => {
      const batch = await app.services.db.toolBatch.findFirstOrThrow({ where: { batchId }, select: { id: true, laneGen: true } });
      const laneJobId = `lane:${batch.id}:${batch.laneGen}`;
      const outbox = await app.services.db.jobOutbox.count({ where: { jobId: laneJobId } });
      return outbox === 0 && !(await app.services.queues.calls.getJob(laneJobId)) && !(await app.services.queues.express.getJob(laneJobId));
    },
    10_000,
    50,
    `lane of ${batchId} settled`,
  );
}

export function outputOf<T extends { output?: unknown }>(call: T | undefined) {
  expect(call).toBeDefined();
  return call!.output as Record<string, unknown> & { __typename: string };
}

/** The typed failure a promise rejects with. */
export async function failureOf(promise: Promise<unknown>): Promise<ToolFailureError['failure']> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolFailureError) return error.failure;
    throw error;
  }
  throw new Error('expected a ToolFailureError, but it succeeded');
}
