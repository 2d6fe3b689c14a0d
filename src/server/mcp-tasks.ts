// toolrun's background runs as MCP tasks (the protocol's task utilities, experimental in the SDK):
// a task-augmented tools/call starts a background run, and the SDK's tasks/get, tasks/result,
// tasks/list and tasks/cancel handlers read and cancel it through this store. The state is the
// run's `task` row in PostgreSQL, so any API process answers for any run.
//
// Scope: tasks/get, tasks/result and tasks/cancel reach any background run of the key's tenant
// (the authorization context the spec binds tasks to), so a host can still fetch a run's result
// after reconnecting; tasks/list lists the runs of this MCP session.
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { type CallToolResult, ErrorCode, McpError, type Request, type RequestId, type Result, type Task as McpTask } from '@modelcontextprotocol/sdk/types.js';
import type { Task } from '../generated/prisma/client.js';
import { resultDocument } from '../domain/tasks/background-output.js';
import { TASK_KINDS } from '../domain/tasks/task-transitions.js';
import type { Viewer } from '../domain/tenants/api-keys.js';
import { DomainError, NotFoundError, ValidationError } from '../model/errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../model/keyset.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';

/** The list `tasks/list` pages through (its cursors are refused elsewhere). */
const MCP_TASKS_LIST = 'mcp-tasks';

/** How often a host is asked to poll tasks/get, and how often tasks/result looks while it waits. */
export const TASK_POLL_INTERVAL_MS = 1000;
const TASKS_PER_PAGE = 50;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The MCP status of a run: a run whose cancel was requested is `cancelled` at once and stays so (as the spec asks). */
export function mcpTaskStatusOf(task: Task): McpTask['status'] {
  if (task.cancelRequestedAt !== null || task.state === 'CANCELED') return 'cancelled';
  if (task.state === 'SUCCEEDED') return 'completed';
  if (task.state === 'FAILED') return 'failed';
  return 'working';
}

export function mcpTaskOf(task: Task): McpTask {
  const status = mcpTaskStatusOf(task);
  const message = status === 'failed' ? (task.error ?? task.summary) : status === 'cancelled' && task.state !== 'CANCELED' ? 'Cancellation requested' : task.stateDetail;
  return {
    taskId: task.id,
    status,
    ...(message ? { statusMessage: message } : {}),
    // Runs are kept with their session; toolrun deletes none by age.
    ttl: null,
    pollInterval: TASK_POLL_INTERVAL_MS,
    createdAt: task.createdAt.toISOString(),
    lastUpdatedAt: (task.finishedAt ?? task.heartbeatAt ?? task.startedAt ?? task.createdAt).toISOString(),
  };
}

/**
 * An error answered to an MCP request with its message as it is. The SDK's McpError puts
 * `MCP error <code>: ` before the message, on the wire too, and a client's McpError then says it twice.
 */
export class McpRequestError extends McpError {
  constructor(code: number, message: string) {
    super(code, message);
    this.message = message;
  }
}

/** A typed refusal as invalid params; anything else is a fault, shown to the client only as such. */
export function asMcpError(error: unknown, logger: Logger): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof DomainError) return new McpRequestError(ErrorCode.InvalidParams, error.message);
  logger.error({ err: error }, 'an MCP task request failed');
  return new McpRequestError(ErrorCode.InternalError, 'Internal error');
}

/** The SDK's task store over toolrun's background runs, for one request of one MCP session. */
export class BackgroundRunTasks implements TaskStore {
  constructor(
    private readonly services: Services,
    private readonly viewer: Viewer,
    /** The toolrun session of the MCP session (its id is the Mcp-Session-Id). */
    private readonly sessionId: string,
  ) {}

  /** Starts the tools/call's tool as a background run (the same spawn as the mutation and spawn_background). */
  async createTask(_options: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<McpTask> {
    this.assertSubmitter('call tools');
    const params = request.params as { name?: unknown; arguments?: unknown } | undefined;
    try {
      const outcome = await this.services.background.spawn({ tenantId: this.viewer.tenantId, sessionId: this.sessionId, tool: params?.name, args: params?.arguments ?? {} });
      return mcpTaskOf(outcome.task);
    } catch (error) {
      throw asMcpError(error, this.services.logger);
    }
  }

  async getTask(taskId: string): Promise<McpTask | null> {
    const task = await this.run(taskId);
    return task && mcpTaskOf(task);
  }

  /** What tools/call would have answered: result.json of the run as text (and structured content), an error result unless it succeeded. */
  async getTaskResult(taskId: string): Promise<Result> {
    const task = await this.run(taskId);
    if (!task) throw new McpRequestError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    const status = mcpTaskStatusOf(task);
    if (status === 'working') throw new McpRequestError(ErrorCode.InvalidRequest, `Task ${taskId} has not finished`);
    let text: string;
    if (status === 'completed') {
      const file = task.resultPath ? await this.services.sessions.fileAt(this.viewer.tenantId, task.sessionId, task.resultPath) : null;
      text = file?.content ?? task.summary ?? '';
    } else {
      text = resultDocument(status === 'failed' ? 'FAILED' : 'CANCELED', { error: task.error ?? task.summary ?? undefined });
    }
    const result: CallToolResult = { content: [{ type: 'text', text }], ...(status === 'completed' ? {} : { isError: true }) };
    const structured = jsonObjectOf(text);
    return structured ? { ...result, structuredContent: structured } : result;
  }

  async listTasks(cursor?: string): Promise<{ tasks: McpTask[]; nextCursor?: string }> {
    let after;
    try {
      after = cursor !== undefined ? decodeKeysetCursor(cursor, MCP_TASKS_LIST, 'cursor') : null;
    } catch (error) {
      // The SDK answers any failure here as -32602 "Failed to list tasks: <message>": the message alone, then.
      if (error instanceof ValidationError) throw new Error(error.message);
      throw asMcpError(error, this.services.logger);
    }
    const { page } = await this.services.tasks.listTasks(this.viewer.tenantId, { sessionId: this.sessionId, kind: TASK_KINDS.background }, { first: TASKS_PER_PAGE, after });
    const last = page.rows.at(-1);
    return {
      tasks: page.rows.map(mcpTaskOf),
      ...(page.hasNextPage && last ? { nextCursor: encodeKeysetCursor(MCP_TASKS_LIST, { key: last.createdAt.toISOString(), id: last.id }) } : {}),
    };
  }

  /** tasks/cancel lands here (status `cancelled`): the run is cancelled as `cancelTask` does. */
  async updateTaskStatus(taskId: string, status: McpTask['status']): Promise<void> {
    if (status !== 'cancelled') throw new McpRequestError(ErrorCode.InvalidRequest, `A toolrun background run's status is set by the run, not to ${status}`);
    this.assertSubmitter('cancel tasks');
    try {
      await this.services.background.cancelTask(this.viewer.tenantId, taskId);
    } catch (error) {
      throw asMcpError(error, this.services.logger);
    }
  }

  async storeTaskResult(): Promise<void> {
    throw new McpRequestError(ErrorCode.InvalidRequest, "A toolrun background run's result is written by the worker that runs it");
  }

  /** The tenant's background run with this id, or null. */
  private async run(taskId: string): Promise<Task | null> {
    if (!UUID_PATTERN.test(taskId)) return null;
    try {
      const task = await this.services.tasks.findTask(this.viewer.tenantId, taskId);
      return task.kind === TASK_KINDS.background ? task : null;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  private assertSubmitter(what: string): void {
    if (!this.viewer.roles.includes('submitter')) throw new McpRequestError(ErrorCode.InvalidRequest, `This API key lacks the submitter role needed to ${what}`);
  }
}

function jsonObjectOf(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
