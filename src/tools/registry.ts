// Resolves tool names to definitions and executors for a tenant: the built-ins, plus the HTTP and
// external tools the tenant registered at run time (RegisteredTool rows, read on every resolve
// so that an update or removal takes effect at once on every process). A registered name never
// shadows a built-in: registration refuses it, and built-ins win here as well. The tools of the
// tenant's MCP servers (`<server>__<tool>`, as last listed) come after both.
import { callHttpTool, type HttpToolSettings } from './http-tool.js';
import type { McpConnections, McpServerTarget } from './mcp-client.js';
import { mcpServerOf, mcpToolDefinition, type McpServerSettings, type McpToolEntry } from './mcp-definition.js';
import { definitionOfRow } from './registered-definition.js';
import { type BuiltinTool, mayRunTwice, type ToolContext, type ToolDefinition } from './types.js';

export interface ResolvedTool {
  definition: ToolDefinition;
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

/** A tool a tenant registered, as stored. */
export interface RegisteredToolRow {
  name: string;
  kind: string;
  definition: unknown;
  url: string | null;
  /** Decrypted: the current secret first, then one still in its rotation overlap. */
  signingSecrets: string[];
}

/** Where registered tools are read from (src/domain/tenants/registered-tools.ts). */
export interface RegisteredToolSource {
  /** The tenant's registered tools, or those of them named in `names`. */
  rows(tenantId: string, names?: string[]): Promise<RegisteredToolRow[]>;
}

/** An MCP server of a tenant with its tools as last listed. */
export interface McpServerRow {
  target: McpServerTarget;
  settings: McpServerSettings;
  tools: McpToolEntry[];
}

/** Where MCP servers are read from (src/domain/tenants/mcp-servers.ts). */
export interface McpServerSource {
  /** The tenant's MCP servers, or those of them named in `names`. */
  servers(tenantId: string, names?: string[]): Promise<McpServerRow[]>;
}

export interface ToolRegistryDeps {
  registered: RegisteredToolSource;
  http: HttpToolSettings;
  mcp?: { servers: McpServerSource; connections: McpConnections };
}

export class ToolRegistry {
  private readonly builtins = new Map<string, BuiltinTool>();

  /** Without `deps` only the built-ins exist (unit tests). */
  constructor(
    builtins: BuiltinTool[],
    private readonly deps?: ToolRegistryDeps,
  ) {
    for (const tool of builtins) {
      if (this.builtins.has(tool.definition.name)) throw new Error(`duplicate built-in tool ${tool.definition.name}`);
      this.builtins.set(tool.definition.name, tool);
    }
  }

  isBuiltin(name: string): boolean {
    return this.builtins.has(name);
  }

  async list(tenantId: string): Promise<ToolDefinition[]> {
    const [registered, servers] = await Promise.all([this.registeredRows(tenantId), this.mcpServers(tenantId)]);
    const definitions = [
      ...[...this.builtins.values()].map((tool) => tool.definition),
      ...registered.filter((row) => !this.builtins.has(row.name)).map((row) => definitionOfRow(row)),
    ];
    const taken = new Set(definitions.map((definition) => definition.name));
    for (const server of servers) {
      for (const entry of server.tools) {
        if (!taken.has(entry.name)) definitions.push(mcpToolDefinition(server.target.name, entry, server.settings));
      }
    }
    return definitions.sort((a, b) => a.name.localeCompare(b.name));
  }

  async resolve(tenantId: string, name: string): Promise<ResolvedTool | null> {
    return (await this.resolveMany(tenantId, [name])).get(name) ?? null;
  }

  async resolveMany(tenantId: string, names: string[]): Promise<Map<string, ResolvedTool>> {
    const resolved = new Map<string, ResolvedTool>();
    const others: string[] = [];
    for (const name of new Set(names)) {
      const builtin = this.builtins.get(name);
      if (builtin) resolved.set(name, { definition: builtin.definition, execute: (args, context) => builtin.execute(args, context) });
      else others.push(name);
    }
    if (others.length > 0) {
      for (const row of await this.registeredRows(tenantId, others)) resolved.set(row.name, this.registeredTool(row));
    }
    const mcpNames = others.filter((name) => !resolved.has(name) && mcpServerOf(name) !== null);
    if (mcpNames.length > 0) {
      const serverNames = [...new Set(mcpNames.map((name) => mcpServerOf(name)!))];
      const wanted = new Set(mcpNames);
      for (const server of await this.mcpServers(tenantId, serverNames)) {
        for (const entry of server.tools) if (wanted.has(entry.name)) resolved.set(entry.name, this.mcpTool(server, entry));
      }
    }
    return resolved;
  }

  private async mcpServers(tenantId: string, names?: string[]): Promise<McpServerRow[]> {
    return this.deps?.mcp ? this.deps.mcp.servers.servers(tenantId, names) : [];
  }

  private mcpTool(server: McpServerRow, entry: McpToolEntry): ResolvedTool {
    const connections = this.deps!.mcp!.connections;
    const definition = mcpToolDefinition(server.target.name, entry, server.settings);
    return { definition, execute: (args, context) => connections.callTool(server.target, entry.mcpName, args, context, mayRunTwice(definition.hints)) };
  }

  private async registeredRows(tenantId: string, names?: string[]): Promise<RegisteredToolRow[]> {
    return this.deps ? this.deps.registered.rows(tenantId, names) : [];
  }

  private registeredTool(row: RegisteredToolRow): ResolvedTool {
    const definition = definitionOfRow(row);
    const http = this.deps!.http;
    if (definition.kind === 'HTTP' && row.url && row.signingSecrets.length > 0) {
      const target = { url: row.url, signingSecrets: row.signingSecrets };
      return { definition, execute: (args, context) => callHttpTool(target, args, context, http) };
    }
    // External tools never execute on a worker: the call runner parks them in PENDING_EXTERNAL.
    return {
      definition,
      execute: () => Promise.reject(new Error(`tool ${definition.name} of kind ${definition.kind} cannot be executed by a worker`)),
    };
  }
}
