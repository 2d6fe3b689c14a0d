// MCP servers a tenant registers as tool sources (admin role: src/resolvers/mcp-servers.ts).
// Registering checks the URL like an HTTP tool's, connects and lists the server's tools (all
// pages); they are stored with the server and refreshed on demand or when a connection of any
// process hears notifications/tools/list_changed. A tool the server no longer lists is gone from
// `tools` at once, so new calls of it end UNAVAILABLE.
import { randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db.js';
import type { McpServer } from '../../generated/prisma/client.js';
import type { Logger } from '../../logger.js';
import { NotFoundError, ValidationError } from '../../model/errors.js';
import { ToolFailureError } from '../../model/outcome.js';
import { toStorable } from '../../model/storable-json.js';
import type { McpConnections, McpCredentials, McpServerTarget } from '../../tools/mcp-client.js';
import {
  MCP_DEFAULT_SETTINGS,
  MCP_SERVER_NAME_MAX,
  MCP_SERVER_NAME_PATTERN,
  mcpToolDefinition,
  mcpToolName,
  type McpServerSettings,
  type McpToolEntry,
  settingsOf,
  toolEntriesOf,
} from '../../tools/mcp-definition.js';
import type { McpServerRow, McpServerSource } from '../../tools/registry.js';
import type { ToolDefinition } from '../../tools/types.js';
import { compileSchemaOrError } from '../../tools/validate-args.js';
import { LIMITS } from './registered-tools.js';
import type { SchemaCompileAllowance } from './schema-compile-allowance.js';
import { checkTimeoutAndRetry, checkToolUrl, type ToolSettingsPatch } from './registered-tools.js';
import type { SecretBox } from './secret-box.js';

const MAX_HEADERS = 20;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** What an HTTP header value may hold (RFC 9110 field-value: visible, space, tab, obs-text), as fetch sends it. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A bearer token as RFC 6750 allows it, loosely: visible ASCII. */
const BEARER_TOKEN = /^[\x21-\x7e]+$/;
/** Headers the transport sets itself. */
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'accept', 'host', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'connection']);

export type McpServerSettingsPatch = ToolSettingsPatch;

export interface RegisterMcpServerInput extends McpServerSettingsPatch {
  name: string;
  url: string;
  bearerToken?: string | null;
  headers?: unknown;
}

export interface UpdateMcpServerInput extends McpServerSettingsPatch {
  url?: string | null;
  /** A new token; an empty string removes it. */
  bearerToken?: string | null;
  /** New headers (replacing all); an empty object removes them. */
  headers?: unknown;
}

/** An MCP server as the API shows it: header names, never their values or the token. */
export interface McpServerView {
  name: string;
  url: string;
  headerNames: string[];
  hasBearerToken: boolean;
  settings: McpServerSettings;
  tools: ToolDefinition[];
  listedAt: Date | null;
}

// The stored form of a server's credentials: their JSON, encrypted at rest like HTTP tools' signing
// secrets (AES-256-GCM under SECRET_KEYS). Written and read only here.
function storedSecret(box: SecretBox, credentials: McpCredentials | null): string | null {
  if (!credentials || (!credentials.bearerToken && Object.keys(credentials.headers ?? {}).length === 0)) return null;
  return box.encrypt(JSON.stringify(credentials));
}

function secretFromStorage(box: SecretBox, stored: string | null): McpCredentials | null {
  if (!stored) return null;
  // Credentials stored before encryption are their plain JSON.
  const parsed = JSON.parse(stored.startsWith('{') ? stored : box.decrypt(stored)) as McpCredentials;
  return { ...(parsed.bearerToken ? { bearerToken: parsed.bearerToken } : {}), ...(parsed.headers ? { headers: parsed.headers } : {}) };
}

function sameCredentials(a: McpCredentials | null, b: McpCredentials | null): boolean {
  const canonical = (credentials: McpCredentials | null) =>
    JSON.stringify([credentials?.bearerToken ?? null, Object.entries(credentials?.headers ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))]);
  return canonical(a) === canonical(b);
}

function targetOf(box: SecretBox, row: Pick<McpServer, 'id' | 'name' | 'url' | 'secret'>): McpServerTarget {
  return { id: row.id, name: row.name, url: row.url, credentials: secretFromStorage(box, row.secret) };
}

function serverRowOf(box: SecretBox, row: McpServer): McpServerRow {
  return { target: targetOf(box, row), settings: settingsOf(row.settings), tools: toolEntriesOf(row.tools) };
}

/** The MCP servers the tool registry resolves, read from their table on every resolve. */
export class McpServerStore implements McpServerSource {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async servers(tenantId: string, names?: string[]): Promise<McpServerRow[]> {
    const rows = await this.db.mcpServer.findMany({ where: { tenantId, ...(names ? { name: { in: names } } : {}) }, orderBy: { name: 'asc' } });
    return rows.map((row) => serverRowOf(this.secrets, row));
  }
}

export interface McpServerServiceDeps {
  config: Config;
  db: Db;
  connections: McpConnections;
  logger: Logger;
  secrets: SecretBox;
  schemaCompiles: SchemaCompileAllowance;
}

export class McpServerService {
  /** Refreshes under way per server id: a burst of list_changed notifications lists once more, not once each. */
  private readonly refreshing = new Map<string, { running: Promise<void>; again: boolean }>();

  constructor(private readonly deps: McpServerServiceDeps) {}

  async list(tenantId: string): Promise<McpServerView[]> {
    const rows = await this.deps.db.mcpServer.findMany({ where: { tenantId }, orderBy: { name: 'asc' } });
    return rows.map((row) => viewOf(this.deps.secrets, row));
  }

  async register(tenantId: string, input: RegisterMcpServerInput): Promise<McpServerView> {
    const name = input.name;
    if (name.length > MCP_SERVER_NAME_MAX || !MCP_SERVER_NAME_PATTERN.test(name)) {
      throw new ValidationError(`name must be at most ${MCP_SERVER_NAME_MAX} characters matching ${MCP_SERVER_NAME_PATTERN.source} (its tools are named <name>__<tool>)`, 'name');
    }
    const url = checkToolUrl(this.deps.config, 'MCP servers', input.url, ' (use bearerToken or headers)');
    const credentials = credentialsOf(input.bearerToken ?? null, input.headers);
    const settings = this.validated(MCP_DEFAULT_SETTINGS, input);
    const existing = await this.deps.db.mcpServer.findUnique({ where: { tenantId_name: { tenantId, name } }, select: { id: true } });
    if (existing) throw new ValidationError(`An MCP server named \`${name}\` is already registered`, 'name');
    const id = randomUUID();
    const tools = await this.discover(tenantId, { id, name, url, credentials });
    try {
      const row = await this.deps.db.mcpServer.create({
        data: { id, tenantId, name, url, secret: storedSecret(this.deps.secrets, credentials), settings: settings as object, tools: storedTools(tools), listedAt: new Date() },
      });
      return viewOf(this.deps.secrets, row);
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw new ValidationError(`An MCP server named \`${name}\` is already registered`, 'name');
      throw error;
    }
  }

  async update(tenantId: string, name: string, patch: UpdateMcpServerInput): Promise<McpServerView> {
    const current = await this.find(tenantId, name);
    const settings = this.validated(settingsOf(current.settings), patch);
    const url = patch.url != null ? checkToolUrl(this.deps.config, 'MCP servers', patch.url, ' (use bearerToken or headers)') : current.url;
    const old = secretFromStorage(this.deps.secrets, current.secret);
    const credentials = credentialsOf(
      patch.bearerToken != null ? patch.bearerToken : (old?.bearerToken ?? null),
      patch.headers !== undefined && patch.headers !== null ? patch.headers : (old?.headers ?? null),
    );
    const connectionChanged = url !== current.url || !sameCredentials(credentials, old);
    const tools = connectionChanged ? await this.discover(tenantId, { id: current.id, name, url, credentials }) : toolEntriesOf(current.tools);
    const row = await this.deps.db.mcpServer.update({
      where: { id: current.id },
      data: {
        url,
        secret: connectionChanged ? storedSecret(this.deps.secrets, credentials) : current.secret,
        settings: settings as object,
        tools: storedTools(tools),
        ...(connectionChanged ? { listedAt: new Date() } : {}),
      },
    });
    return viewOf(this.deps.secrets, row);
  }

  /** Lists the server's tools again now. */
  async refresh(tenantId: string, name: string): Promise<McpServerView> {
    const current = await this.find(tenantId, name);
    const tools = await this.discover(tenantId, targetOf(this.deps.secrets, current));
    const row = await this.deps.db.mcpServer.update({ where: { id: current.id }, data: { tools: storedTools(tools), listedAt: new Date() } });
    return viewOf(this.deps.secrets, row);
  }

  /** A connection heard notifications/tools/list_changed from the server: list again (coalesced). */
  toolsChanged(target: McpServerTarget): Promise<void> {
    const current = this.refreshing.get(target.id);
    if (current) {
      current.again = true;
      return current.running;
    }
    const entry = { running: Promise.resolve(), again: false };
    entry.running = (async () => {
      try {
        do {
          entry.again = false;
          await this.refreshStored(target).catch((error: unknown) =>
            this.deps.logger.warn({ err: error, mcpServer: target.name }, 'could not refresh the tools of an MCP server after list_changed'),
          );
        } while (entry.again);
      } finally {
        this.refreshing.delete(target.id);
      }
    })();
    this.refreshing.set(target.id, entry);
    return entry.running;
  }

  async remove(tenantId: string, name: string): Promise<McpServerView> {
    const current = await this.find(tenantId, name);
    await this.deps.db.mcpServer.delete({ where: { id: current.id } });
    return viewOf(this.deps.secrets, current);
  }

  private async refreshStored(target: McpServerTarget): Promise<void> {
    const owner = await this.deps.db.mcpServer.findUnique({ where: { id: target.id }, select: { tenantId: true } });
    if (!owner) return;
    const tools = await this.discover(owner.tenantId, target);
    // Only while the row still connects as listed (not removed or re-pointed meanwhile).
    const row = await this.deps.db.mcpServer.findUnique({ where: { id: target.id }, select: { url: true, secret: true } });
    if (!row || row.url !== target.url || !sameCredentials(secretFromStorage(this.deps.secrets, row.secret), target.credentials)) return;
    await this.deps.db.mcpServer.updateMany({
      where: { id: target.id, url: row.url, secret: row.secret },
      data: { tools: storedTools(tools), listedAt: new Date() },
    });
  }

  private async find(tenantId: string, name: string): Promise<McpServer> {
    const row = await this.deps.db.mcpServer.findUnique({ where: { tenantId_name: { tenantId, name } } });
    if (!row) throw new NotFoundError('McpServer', name);
    return row;
  }

  /** Lists the server's tools as stored entries; an unreachable or failing server is a ValidationError on `url`. */
  private async discover(tenantId: string, target: McpServerTarget): Promise<McpToolEntry[]> {
    let tools: Tool[];
    try {
      tools = await this.deps.connections.listTools(target, AbortSignal.timeout(this.deps.config.MCP_REQUEST_TIMEOUT_MS));
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const message = timedOut
        ? `it did not answer within ${this.deps.config.MCP_REQUEST_TIMEOUT_MS / 1000} s (MCP_REQUEST_TIMEOUT_MS)`
        : error instanceof ToolFailureError ? error.message : error instanceof Error ? error.message : String(error);
      throw new ValidationError(`url: could not list the tools of MCP server \`${target.name}\`: ${message}`, 'url');
    }
    const entries: McpToolEntry[] = [];
    const names = new Set<string>();
    for (const tool of tools) {
      const name = mcpToolName(target.name, tool.name);
      const schemaError =
        Buffer.byteLength(JSON.stringify(tool.inputSchema) ?? '') > LIMITS.schemaBytes
          ? `larger than ${LIMITS.schemaBytes} bytes of JSON`
          : this.deps.schemaCompiles.charge(tenantId, () => compileSchemaOrError(tool.inputSchema));
      if (!name || names.has(name) || schemaError) {
        this.deps.logger.warn({ mcpServer: target.name, tool: tool.name, schemaError }, 'MCP tool left out: its name does not map onto a free tool name or its input schema is unusable');
        continue;
      }
      names.add(name);
      const annotations = tool.annotations ?? {};
      entries.push({
        name,
        mcpName: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description ?? tool.title ?? tool.name,
        inputSchema: tool.inputSchema as Record<string, unknown>,
        annotations: Object.fromEntries(
          (['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).filter((key) => annotations[key] !== undefined).map((key) => [key, annotations[key]]),
        ),
      });
    }
    return entries;
  }

  private validated(current: McpServerSettings, patch: McpServerSettingsPatch): McpServerSettings {
    const next: McpServerSettings = {
      policy: patch.policy ?? current.policy,
      scheduling: patch.scheduling ?? current.scheduling,
      timeoutMs: patch.timeoutMs ?? current.timeoutMs,
      retry: {
        maxAttempts: patch.retry?.maxAttempts ?? current.retry.maxAttempts,
        backoff: {
          type: patch.retry?.backoff?.type ?? current.retry.backoff.type,
          delayMs: patch.retry?.backoff?.delayMs ?? current.retry.backoff.delayMs,
          maxDelayMs: patch.retry?.backoff?.maxDelayMs ?? current.retry.backoff.maxDelayMs,
        },
      },
    };
    checkTimeoutAndRetry(next, this.deps.config.MAX_CALL_TIMEOUT_MS);
    return next;
  }
}

/**
 * The listed tools as stored: what a server says of its tools (descriptions, schemas) may hold
 * U+0000 or lone surrogates, which jsonb cannot; they are kept losslessly (db.ts restores them).
 */
function storedTools(tools: McpToolEntry[]): object[] {
  return toStorable(tools) as object[];
}

function credentialsOf(bearerToken: string | null, headers: unknown): McpCredentials | null {
  const credentials: McpCredentials = {};
  if (bearerToken) {
    if (bearerToken.length > 4096 || !BEARER_TOKEN.test(bearerToken)) {
      throw new ValidationError('bearerToken must be at most 4096 visible ASCII characters (no spaces, no `…`)', 'bearerToken');
    }
    credentials.bearerToken = bearerToken;
  }
  if (headers !== null && headers !== undefined) {
    if (typeof headers !== 'object' || Array.isArray(headers)) throw new ValidationError('headers must be an object of header names to string values', 'headers');
    const entries = Object.entries(headers as Record<string, unknown>);
    if (entries.length > MAX_HEADERS) throw new ValidationError(`headers: at most ${MAX_HEADERS}`, 'headers');
    const checked: Record<string, string> = {};
    for (const [name, value] of entries) {
      if (!HEADER_NAME.test(name)) throw new ValidationError(`headers: \`${name}\` is not a valid header name`, 'headers');
      const lower = name.toLowerCase();
      if (RESERVED_HEADERS.has(lower)) throw new ValidationError(`headers: \`${name}\` is set by the MCP transport itself`, 'headers');
      if (lower === 'authorization' && credentials.bearerToken) throw new ValidationError('headers: give either bearerToken or an Authorization header', 'headers');
      if (typeof value !== 'string' || value.length > 4096 || !HEADER_VALUE.test(value)) {
        throw new ValidationError(`headers: the value of \`${name}\` must be one line of at most 4096 characters that HTTP allows in a header (no control characters, none beyond U+00FF)`, 'headers');
      }
      checked[lower] = value;
    }
    if (Object.keys(checked).length > 0) credentials.headers = checked;
  }
  return credentials.bearerToken || credentials.headers ? credentials : null;
}

function viewOf(box: SecretBox, row: McpServer): McpServerView {
  const credentials = secretFromStorage(box, row.secret);
  const settings = settingsOf(row.settings);
  return {
    name: row.name,
    url: row.url,
    headerNames: Object.keys(credentials?.headers ?? {}).sort(),
    hasBearerToken: Boolean(credentials?.bearerToken),
    settings,
    tools: toolEntriesOf(row.tools).map((entry) => mcpToolDefinition(row.name, entry, settings)),
    listedAt: row.listedAt,
  };
}
