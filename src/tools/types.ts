// What a tool is, and what it sees while it runs.
import type { Logger } from 'pino';
import type { ToolProgress } from '../model/events.js';
import type { RetryPolicy } from '../model/retry.js';
import { longerThan, MAX_IDENTIFIER_LENGTH } from '../model/text.js';
import type { SessionFiles } from './session-files.js';

export type JsonSchema = Record<string, unknown>;

export interface ToolHints {
  readonly: boolean;
  idempotent: boolean;
  destructive: boolean;
  openWorld: boolean;
  supportsBackground: boolean;
}

/**
 * Whether running a tool again after an attempt whose outcome is unknown (a lost worker, a
 * connection gone mid-call) is safe: an idempotent or read-only tool's second run changes nothing.
 */
export function mayRunTwice(hints: Pick<ToolHints, 'idempotent' | 'readonly'> | null | undefined): boolean {
  return Boolean(hints && (hints.idempotent || hints.readonly));
}

export type ToolPolicy = 'AUTO' | 'REQUIRES_APPROVAL';
export type ToolScheduling = 'PARALLEL' | 'SERIAL';
export type ToolKind = 'BUILTIN' | 'HTTP' | 'EXTERNAL' | 'MCP';

export interface ToolDefinition {
  name: string;
  displayName: string;
  description: string;
  parametersSchema: JsonSchema;
  hints: ToolHints;
  policy: ToolPolicy;
  scheduling: ToolScheduling;
  timeoutMs: number;
  retry: RetryPolicy;
  kind: ToolKind;
  /**
   * The capability that contributes the tool (seed 002: `spawn_background` comes from
   * `background_execution`); absent for the default built-ins and for registered tools.
   */
  capability?: string;
  /**
   * The tool checks its arguments itself, with its own messages (spawn_background, as the seed
   * does), so they are not validated against `parametersSchema` before it runs.
   */
  checksOwnArguments?: boolean;
  /** HTTP tools: the endpoint the worker POSTs calls to. */
  url?: string;
  /** MCP tools: the name of the MCP server that provides the tool. */
  mcpServer?: string;
}

export interface WebFetchSettings {
  allowPrivate: boolean;
  allowLoopback: boolean;
  maxBytes: number;
  timeoutMs: number;
}

export interface ToolContext {
  tenantId: string;
  sessionId: string;
  callId: string;
  tool: string;
  /** 1-based attempt number of this execution. */
  attempt: number;
  maxAttempts: number;
  /** `lash-tool:<sessionId>:<callId>:<tool>` (seed 000): the same on every attempt, for idempotent side effects. */
  replayKey: string;
  /** Fires on timeout, cancellation or shutdown; `signal.reason` says which. */
  signal: AbortSignal;
  deadline: Date;
  reportProgress(progress: ToolProgress): void;
  /** Output chunks (streamed to subscribers of background runs; foreground calls keep none). */
  output(stream: 'stdout' | 'stderr', text: string): void;
  /** Human-readable status text. */
  status(text: string): void;
  files: SessionFiles;
  setTodos(todos: unknown[]): Promise<void>;
  webFetch: WebFetchSettings;
  logger: Logger;
  /**
   * Starts a background run (or schedules runs) in this session: the spawn_background tool.
   * Resolves with the run's or the schedule's description; refusals reject with a ToolFailureError.
   * Absent where runs cannot be spawned (inside a background run).
   */
  spawnBackground?(args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface BuiltinTool {
  definition: ToolDefinition;
  /** Returns the tool value; throws ToolFailureError for a typed failure. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** The most characters a tool's name has: built-in, registered and MCP (`<server>__<tool>`) names alike. */
export const TOOL_NAME_MAX_LENGTH = 64;

export const TOOL_NAME_PATTERN = new RegExp(`^[a-z][a-z0-9_]{0,${TOOL_NAME_MAX_LENGTH - 1}}$`);

/**
 * Why a name a call asks for is refused where it arrives, or null. A name no tool can have (longer than
 * TOOL_NAME_MAX_LENGTH) that a model may well write is taken, and its call fails alone as an unknown
 * tool's, as the model expects; only one past any identifier's bound is refused, since it is kept with its call.
 */
export function overlongToolName(name: string): string | null {
  return longerThan(name, MAX_IDENTIFIER_LENGTH) ? `is longer than ${MAX_IDENTIFIER_LENGTH} characters (no tool's name is longer than ${TOOL_NAME_MAX_LENGTH})` : null;
}

const DEFAULT_HINTS: ToolHints = { readonly: false, idempotent: false, destructive: false, openWorld: false, supportsBackground: false };

type BuiltinSpec = Pick<ToolDefinition, 'name' | 'description' | 'parametersSchema'> &
  Partial<Omit<ToolDefinition, 'hints' | 'retry' | 'kind'>> & {
    hints?: Partial<ToolHints>;
    retry?: Partial<RetryPolicy>;
    execute: BuiltinTool['execute'];
  };

export function defineBuiltinTool(spec: BuiltinSpec): BuiltinTool {
  const { execute, hints, retry, ...rest } = spec;
  return {
    definition: {
      displayName: spec.name
        .split('_')
        .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
        .join(' '),
      policy: 'AUTO',
      scheduling: 'PARALLEL',
      timeoutMs: 30_000,
      ...rest,
      hints: { ...DEFAULT_HINTS, ...hints },
      retry: { maxAttempts: 1, backoff: { type: 'EXPONENTIAL', delayMs: 200, maxDelayMs: 10_000 }, ...retry },
      kind: 'BUILTIN',
    },
    execute,
  };
}
