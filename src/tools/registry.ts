// Resolves tool names to definitions and executors for a tenant: the built-ins, plus the HTTP and
// external tools the tenant registered at run time (RegisteredTool rows, read on every resolve
// so that an update or removal takes effect at once on every process). A registered name never
// shadows a built-in: registration refuses it, and built-ins win here as well.
import { callHttpTool, type HttpToolSettings } from './http-tool.js';
import { definitionOfRow } from './registered-definition.js';
import type { BuiltinTool, ToolContext, ToolDefinition } from './types.js';

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

export interface ToolRegistryDeps {
  registered: RegisteredToolSource;
  http: HttpToolSettings;
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
    const registered = await this.registeredRows(tenantId);
    return [
      ...[...this.builtins.values()].map((tool) => tool.definition),
      ...registered.filter((row) => !this.builtins.has(row.name)).map((row) => definitionOfRow(row)),
    ].sort((a, b) => a.name.localeCompare(b.name));
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
    return resolved;
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
