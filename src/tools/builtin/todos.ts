import { ToolFailureError } from '../../model/outcome.js';
import { defineBuiltinTool } from '../types.js';

const STATUSES = ['pending', 'in_progress', 'completed'] as const;
type TodoStatus = (typeof STATUSES)[number];

export interface Todo {
  id: string;
  content: string;
  status: TodoStatus;
}

export const writeTodos = defineBuiltinTool({
  name: 'write_todos',
  description:
    "Replaces the session's todo list. Each item has `content`, a `status` (pending, in_progress, completed) and an optional `id` (defaults to its 1-based position; ids must be unique in the list). Returns the stored list with counts per status.",
  parametersSchema: {
    type: 'object',
    properties: {
      todos: {
        type: 'array',
        maxItems: 200,
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 100 },
            content: { type: 'string', minLength: 1, maxLength: 2000 },
            status: { type: 'string', enum: [...STATUSES] },
          },
          required: ['content', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['todos'],
    additionalProperties: false,
  },
  // Replacing the whole list with the same list changes nothing: idempotent, not destructive of
  // anything but the previous list, which is the point of the tool.
  hints: { idempotent: true },
  scheduling: 'SERIAL',
  timeoutMs: 10_000,
  async execute(args, context) {
    const input = args.todos as Array<{ id?: string; content: string; status: TodoStatus }>;
    const todos: Todo[] = input.map((todo, index) => ({ id: todo.id ?? String(index + 1), content: todo.content, status: todo.status }));
    // An id names one item: an agent that updates "item 2" must not find two of them.
    const seen = new Set<string>();
    for (const [index, todo] of todos.entries()) {
      if (seen.has(todo.id)) {
        throw new ToolFailureError({ class: 'INVALID_REQUEST', code: 'duplicate_todo_id', message: `todos[${index}] has the id ${JSON.stringify(todo.id)}, which an earlier item already has (an item without an id has its 1-based position)` });
      }
      seen.add(todo.id);
    }
    await context.setTodos(todos);
    const counts = { total: todos.length, pending: 0, in_progress: 0, completed: 0 };
    for (const todo of todos) counts[todo.status]++;
    return { todos, counts };
  },
});
