// Helpers of the seed fidelity tests: run calls through GraphQL against a real toolrun and read
// them back in the seeds' JSON forms.
import { expect } from 'vitest';
import {
  RegisterExternalToolDocument,
  SeedCompleteToolCallDocument,
  type SeedCompleteToolCallMutationVariables,
  SeedExecuteToolBatchDocument,
  type SeedExecuteToolBatchMutationVariables,
  SeedSessionFileDocument,
  SeedTaskDocument,
  SeedToolCallDocument,
} from '../gql/graphql.js';
import { eventually, type Toolrun } from '../support/toolrun.js';

export type SeedBatch = Awaited<ReturnType<typeof runBatch>>;
export type SeedCall = SeedBatch['calls'][number];

/** Submits a batch and waits (bounded) for it to complete. */
export async function runBatch(app: Toolrun, variables: Omit<SeedExecuteToolBatchMutationVariables, 'waitMs'>, waitMs = 15_000) {
  const { executeToolBatch: batch } = await app.query(SeedExecuteToolBatchDocument, { ...variables, waitMs });
  if (batch.__typename !== 'ToolBatch') throw new Error(`expected a batch, got ${JSON.stringify(batch)}`);
  expect(batch.status).toBe('COMPLETED');
  return batch;
}

/** Runs one call and returns it finished. */
export async function runCall(app: Toolrun, sessionId: string, tool: string, args: unknown, id = `call-${Math.random().toString(36).slice(2)}`): Promise<SeedCall> {
  const batch = await runBatch(app, { sessionId, calls: [{ id, tool, args }] });
  return batch.calls[0]!;
}

/** The payload of a call's outcome in the seeds' JSON form. */
export function payloadOf(call: { outcome?: unknown } | null | undefined): Record<string, unknown> {
  const outcome = call?.outcome as { status: string; payload: Record<string, unknown> } | null | undefined;
  expect(outcome).toBeTruthy();
  return outcome!.payload;
}

export async function registerExternalTool(app: Toolrun, name: string): Promise<void> {
  const result = await app.query(RegisterExternalToolDocument, { input: { name, description: `external ${name}`, parametersSchema: { type: 'object' } } });
  if (result.registerExternalTool.__typename !== 'ToolDefinition') throw new Error(JSON.stringify(result));
}

export async function callOf(app: Toolrun, sessionId: string, callId: string) {
  const { toolCall } = await app.query(SeedToolCallDocument, { callId, sessionId });
  return toolCall;
}

/** Submits one call of an external tool and waits until it waits for its completion. */
export async function pendingExternalCall(app: Toolrun, sessionId: string, tool: string, callId: string): Promise<void> {
  const { executeToolBatch: batch } = await app.query(SeedExecuteToolBatchDocument, { sessionId, calls: [{ id: callId, tool, args: {} }] });
  if (batch.__typename !== 'ToolBatch') throw new Error(JSON.stringify(batch));
  await eventually(async () => (await callOf(app, sessionId, callId))?.status === 'PENDING_EXTERNAL');
}

/** Completes an external call the way an agent runtime reports a result. */
export async function complete(app: Toolrun, variables: SeedCompleteToolCallMutationVariables) {
  return (await app.query(SeedCompleteToolCallDocument, variables)).completeToolCall;
}

/** An external call completed with `result`; returns the finished call. */
export async function completedCall(app: Toolrun, sessionId: string, tool: string, result: SeedCompleteToolCallMutationVariables['result']) {
  const callId = `ext-${Math.random().toString(36).slice(2)}`;
  await pendingExternalCall(app, sessionId, tool, callId);
  const done = await complete(app, { callId, sessionId, result });
  if (done.__typename !== 'ToolCall') throw new Error(`completion refused: ${JSON.stringify(done)}`);
  return done;
}

export async function taskOf(app: Toolrun, id: string) {
  const { task } = await app.query(SeedTaskDocument, { id });
  return task;
}

export function waitForTask(app: Toolrun, id: string, states: string[], timeoutMs = 15_000) {
  return eventually(async () => {
    const task = await taskOf(app, id);
    return task && states.includes(task.state) ? task : null;
  }, timeoutMs);
}

export async function fileContent(app: Toolrun, sessionId: string, path: string): Promise<string | null> {
  const { sessionFiles } = await app.query(SeedSessionFileDocument, { sessionId, path });
  return sessionFiles.find((file) => file.path === path)?.content ?? null;
}

/** The seeds' attachment reference used by their tests (`image_ref("img")`). */
export function imageRef(id: string) {
  return { id, media_type: { kind: 'image', type: 'png' }, byte_len: 3, width: 1, height: 1, label: 'tiny' };
}

export const TAG = '$lash_tool_value';
