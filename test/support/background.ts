// Steps of background-run tests: spawning, following a task, and reading what a run leaves.
import {
  GetTaskDocument,
  SessionFileDocument,
  SessionMessagesDocument,
  SpawnBackgroundDocument,
  type SpawnBackgroundMutationVariables,
  type TaskEventsSubscription,
} from '../gql/graphql.js';
import type { GraphQLResponse, Toolrun } from './toolrun.js';
import { eventually } from './wait.js';

export type TaskEvent = TaskEventsSubscription['taskEvents'];

export const taskEventsOf = (items: Array<GraphQLResponse<TaskEventsSubscription>>) =>
  items.map((item) => {
    if (!item.data) throw new Error(`subscription error: ${JSON.stringify(item.errors)}`);
    return item.data.taskEvents;
  });

/** A predicate for `Subscription.until`: true at the task's TaskFinished. */
export const finishedEvent = (taskId: string) => (item: GraphQLResponse<TaskEventsSubscription>) =>
  item.data?.taskEvents.__typename === 'TaskFinished' && item.data.taskEvents.taskId === taskId;

export async function spawn(app: Toolrun, variables: SpawnBackgroundMutationVariables) {
  return (await app.query(SpawnBackgroundDocument, variables)).spawnBackground;
}

export async function spawnRun(app: Toolrun, variables: SpawnBackgroundMutationVariables) {
  const result = await spawn(app, variables);
  if (result.__typename !== 'BackgroundRun') throw new Error(`expected a run, got ${JSON.stringify(result)}`);
  return result;
}

export async function getTask(app: Toolrun, id: string) {
  const { task } = await app.query(GetTaskDocument, { id });
  if (!task) throw new Error(`no task ${id}`);
  return task;
}

export async function waitForTask(app: Toolrun, id: string, done: (task: Awaited<ReturnType<typeof getTask>>) => boolean, timeoutMs = 15_000) {
  return eventually(async () => {
    const task = await getTask(app, id);
    return done(task) ? task : null;
  }, timeoutMs);
}

export const finished = (task: { state: string }) => ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(task.state);

export async function fileContent(app: Toolrun, sessionId: string, path: string): Promise<string | null> {
  const { sessionFile } = await app.query(SessionFileDocument, { sessionId, path });
  return sessionFile?.content ?? null;
}

export async function messages(app: Toolrun, sessionId: string) {
  return (await app.query(SessionMessagesDocument, { sessionId })).sessionMessages;
}

/** Queued and running background runs in the whole database. */
export async function activeRuns(app: Toolrun): Promise<number> {
  return app.services.db.task.count({ where: { kind: 'background_tool', state: { in: ['QUEUED', 'RUNNING'] } } });
}
