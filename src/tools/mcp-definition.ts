// MCP-sourced tools: how a tool an MCP server lists (tools/list) is named, stored and read back
// into a ToolDefinition. A server's tools appear as `<server>__<tool>`; MCP's annotations map
// onto toolrun's hints with the protocol's own defaults (destructive and open-world unless the
// server says otherwise), and the server's settings give every tool its policy, scheduling,
// timeout and retries.
import type { RetryPolicy } from '../model/retry.js';
import { displayNameOf, REGISTERED_DEFAULTS } from './registered-definition.js';
import { type JsonSchema, TOOL_NAME_PATTERN, type ToolDefinition, type ToolPolicy, type ToolScheduling } from './types.js';

export const MCP_NAME_SEPARATOR = '__';
/** Server names: lowercase words joined by single underscores, so the separator stays unambiguous. */
export const MCP_SERVER_NAME_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
export const MCP_SERVER_NAME_MAX = 24;

/** What a server's tools get (McpServer.settings). */
export interface McpServerSettings {
  policy: ToolPolicy;
  scheduling: ToolScheduling;
  timeoutMs: number;
  retry: RetryPolicy;
}

export const MCP_DEFAULT_SETTINGS: McpServerSettings = {
  policy: 'AUTO',
  scheduling: 'PARALLEL',
  timeoutMs: 60_000,
  // Transport failures and 5xx are safe to retry: a few attempts by default.
  retry: { maxAttempts: 3, backoff: { ...REGISTERED_DEFAULTS.retry.backoff } },
};

export interface McpAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One discovered tool as stored in McpServer.tools. */
export interface McpToolEntry {
  /** toolrun's name: `<server>__<tool>`. */
  name: string;
  /** The name the server knows it by, sent in tools/call. */
  mcpName: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: McpAnnotations;
}

/** toolrun's name for an MCP tool, or null when none fits the tool name rules. */
export function mcpToolName(server: string, mcpName: string): string | null {
  const tail = mcpName
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!tail) return null;
  const name = `${server}${MCP_NAME_SEPARATOR}${tail}`;
  return TOOL_NAME_PATTERN.test(name) ? name : null;
}

/** The server part of a name that may be an MCP tool's, or null. */
export function mcpServerOf(name: string): string | null {
  const at = name.indexOf(MCP_NAME_SEPARATOR);
  return at > 0 ? name.slice(0, at) : null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads McpServer.settings back, field by field with defaults. */
export function settingsOf(json: unknown): McpServerSettings {
  const stored = isObject(json) ? json : {};
  const retry = isObject(stored.retry) ? stored.retry : {};
  return {
    policy: stored.policy === 'REQUIRES_APPROVAL' ? 'REQUIRES_APPROVAL' : 'AUTO',
    scheduling: stored.scheduling === 'SERIAL' ? 'SERIAL' : 'PARALLEL',
    timeoutMs: typeof stored.timeoutMs === 'number' ? stored.timeoutMs : MCP_DEFAULT_SETTINGS.timeoutMs,
    retry: {
      maxAttempts: typeof retry.maxAttempts === 'number' ? retry.maxAttempts : MCP_DEFAULT_SETTINGS.retry.maxAttempts,
      backoff: { ...MCP_DEFAULT_SETTINGS.retry.backoff, ...(isObject(retry.backoff) ? retry.backoff : {}) },
    },
  };
}

/** Reads McpServer.tools back; entries that are not tools are left out. */
export function toolEntriesOf(json: unknown): McpToolEntry[] {
  if (!Array.isArray(json)) return [];
  return json.filter((entry): entry is McpToolEntry => isObject(entry) && typeof entry.name === 'string' && typeof entry.mcpName === 'string');
}

export function mcpToolDefinition(server: string, entry: McpToolEntry, settings: McpServerSettings): ToolDefinition {
  const annotations = entry.annotations ?? {};
  const readonly = annotations.readOnlyHint === true;
  return {
    name: entry.name,
    displayName: entry.title ?? annotations.title ?? displayNameOf(entry.name.slice(server.length + MCP_NAME_SEPARATOR.length)),
    description: entry.description,
    parametersSchema: entry.inputSchema,
    hints: {
      readonly,
      // The protocol's defaults: a tool is destructive and open-world unless it says otherwise.
      destructive: !readonly && annotations.destructiveHint !== false,
      idempotent: annotations.idempotentHint === true,
      openWorld: annotations.openWorldHint !== false,
      supportsBackground: false,
    },
    policy: settings.policy,
    scheduling: settings.scheduling,
    timeoutMs: settings.timeoutMs,
    retry: settings.retry,
    kind: 'MCP',
    mcpServer: server,
  };
}
