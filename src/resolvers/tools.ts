import type { RegisterHttpToolInput, RegisterToolInput, UpdateToolInput } from '../domain/tenants/registered-tools.js';
import type { GraphQLContext } from '../schema/context.js';

export function registerHttpTool(context: GraphQLContext, input: RegisterHttpToolInput) {
  return context.services.registeredTools.registerHttp(context.viewer, input);
}

export async function registerExternalTool(context: GraphQLContext, input: RegisterToolInput) {
  return (await context.services.registeredTools.registerExternal(context.viewer, input)).tool;
}

export async function updateTool(context: GraphQLContext, name: string, input: UpdateToolInput) {
  return (await context.services.registeredTools.update(context.viewer, name, input)).tool;
}

export function rotateToolSigningSecret(context: GraphQLContext, name: string) {
  return context.services.registeredTools.rotateSigningSecret(context.viewer, name);
}

export async function removeTool(context: GraphQLContext, name: string) {
  return (await context.services.registeredTools.remove(context.viewer, name)).tool;
}
