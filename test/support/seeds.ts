// Steps of the seed fidelity tests (test/api/seeds/): run calls through GraphQL and read them back
// in the seeds' JSON forms.
import { expect } from 'vitest';
import {
  RegisterExternalToolDocument,
  SeedCompleteToolCallDocument,
  type SeedCompleteToolCallMutationVariables,
  SeedExecuteToolBatchDocument,
  type SeedExecuteToolBatchMutationVariables,
  SeedToolCallDocument,
} from '../gql/graphql.js';
import type { GraphQLClient } from './toolrun.js';
import { eventually } from './wait.js';

type Client = Pick<GraphQLClient, 'query'>;

export type SeedBatch = Awaited<ReturnType<typeof runBatch>>;
export type SeedCall = SeedBatch['calls']['nodes'][number];

/** Submits a batch and waits (bounded) for it to complete. */
export async function runBatch(app: Client, variables: Omit<SeedExecuteToolBatchMutationVariables, 'waitMs'>, waitMs = 15_000) {
  const { executeToolBatch: batch } = await app.query(SeedExecuteToolBatchDocument, { ...variables, waitMs });
  if (batch.__typename !== 'ToolBatch') throw new Error(`expected a batch, got ${JSON.stringify(batch)}`);
  expect(batch.status).toBe('COMPLETED');
  return batch;
}

/** Runs one call and returns it finished. */
export async function runCall(app: Client, sessionId: string, tool: string, args: unknown, id = `call-${Math.random().toString(36).slice(2)}`): Promise<SeedCall> {
  const batch = await runBatch(app, { sessionId, calls: [{ id, tool, args }] });
  return batch.calls.nodes[0]!;
}

/** The payload of a call's outcome in the seeds' JSON form. */
export function payloadOf(call: { outcome?: unknown } | null | undefined): Record<string, unknown> {
  const outcome = call?.outcome as { status: string; payload: Record<string, unknown> } | null | undefined;
  expect(outcome).toBeTruthy();
  return outcome!.payload;
}

export async function registerExternalTool(app: Client, name: string): Promise<void> {
  const result = await app.query(RegisterExternalToolDocument, { input: { name, description: `external ${name}`, parametersSchema: { type: 'object' } } });
  if (result.registerExternalTool.__typename !== 'ToolDefinition') throw new Error(JSON.stringify(result));
}

/** A call with its seed forms (`outcome`, `toolResult`, `rawOutput`), or null. */
export async function seedCallOf(app: Client, sessionId: string, callId: string) {
  const { toolCall } = await app.query(SeedToolCallDocument, { callId, sessionId });
  return toolCall;
}

/** Submits one call of an external tool and waits until it waits for its completion. */
export async function pendingExternalCall(app: Client, sessionId: string, tool: string, callId: string): Promise<void> {
  const { executeToolBatch: batch } = await app.query(SeedExecuteToolBatchDocument, { sessionId, calls: [{ id: callId, tool, args: {} }] });
  if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
  await eventually(async () => (await seedCallOf(app, sessionId, callId))?.status === 'PENDING_EXTERNAL');
}

/** Completes an external call the way an agent runtime reports a result. */
export async function complete(app: Client, variables: SeedCompleteToolCallMutationVariables) {
  return (await app.query(SeedCompleteToolCallDocument, variables)).completeToolCall;
}

/** An external call completed with `result`; returns the finished call. */
export async function completedCall(app: Client, sessionId: string, tool: string, result: SeedCompleteToolCallMutationVariables['result']) {
  const callId = `ext-${Math.random().toString(36).slice(2)}`;
  await pendingExternalCall(app, sessionId, tool, callId);
  const done = await complete(app, { callId, sessionId, result });
  if (done.__typename !== 'ToolCall') throw new Error(`completion refused: ${JSON.stringify(done)}`);
  return done;
}

/** The seeds' attachment reference used by their tests (`image_ref("img")`). */
export function imageRef(id: string) {
  return { id, media_type: { kind: 'image', type: 'png' }, byte_len: 3, width: 1, height: 1, label: 'tiny' };
}

export const TAG = '$lash_tool_value';
