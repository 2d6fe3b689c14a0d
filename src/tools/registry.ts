// Resolves tool names to definitions and executors for a tenant: the built-ins, plus (later)
// the tools a tenant registered at run time.
import type { BuiltinTool, ToolContext, ToolDefinition } from './types.js';

export interface ResolvedTool {
  definition: ToolDefinition;
  execute(args: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

export class ToolRegistry {
  private readonly builtins = new Map<string, BuiltinTool>();

  constructor(builtins: BuiltinTool[]) {
    for (const tool of builtins) {
      if (this.builtins.has(tool.definition.name)) throw new Error(`duplicate built-in tool ${tool.definition.name}`);
      this.builtins.set(tool.definition.name, tool);
    }
  }

  isBuiltin(name: string): boolean {
    return this.builtins.has(name);
  }

  async list(_tenantId: string): Promise<ToolDefinition[]> {
    return [...this.builtins.values()].map((tool) => tool.definition).sort((a, b) => a.name.localeCompare(b.name));
  }

  async resolve(tenantId: string, name: string): Promise<ResolvedTool | null> {
    return (await this.resolveMany(tenantId, [name])).get(name) ?? null;
  }

  async resolveMany(_tenantId: string, names: string[]): Promise<Map<string, ResolvedTool>> {
    const resolved = new Map<string, ResolvedTool>();
    for (const name of new Set(names)) {
      const builtin = this.builtins.get(name);
      if (builtin) resolved.set(name, { definition: builtin.definition, execute: (args, context) => builtin.execute(args, context) });
    }
    return resolved;
  }
}
