// The GraphQL HTTP/SSE endpoint with liveness (/health) and readiness (/ready), without a listening
// socket (app.ts adds that and WebSocket).
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import type { GraphQLError } from 'graphql';
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.js';
import { pingDatabase } from '../db.js';
import type { Viewer } from '../domain/tenants/api-keys.js';
import { schema } from '../graphql.js';
import type { GraphQLContext } from '../schema/context.js';
import { addLogContext } from '../logging/context.js';
import type { Services } from '../services.js';
import { authenticateRequest, unauthenticated } from './auth.js';
import { corsPolicy } from './cors.js';
import { graphiqlOptions, renderGraphiQL } from './graphiql.js';
import { maskError } from './mask-error.js';
import { useGraphqlMetrics } from './plugins/use-graphql-metrics.js';
import { inputLimitsCheck, useInputLimits } from './plugins/use-input-limits.js';
import { type OperationCheck, useOperationChecks } from './plugins/use-operation-checks.js';
import { useIntrospectionSetting } from './plugins/use-introspection-setting.js';
import { queryCostCheck } from './plugins/use-query-cost.js';
import { useRequestErrorCodes } from './plugins/use-request-error-codes.js';
import { GRAPHQL_PATH } from './paths.js';
import { useEarlyAdmission } from './plugins/use-early-admission.js';
import { useRequestSizeLimit } from './plugins/use-request-size-limit.js';
import { useTracing } from './plugins/use-tracing.js';
import { useUnservedStreams } from './plugins/use-unserved-streams.js';
import { yogaLogger } from './yoga-logger.js';

export interface ServerContext {
  /** Set by the WebSocket server once `connection_init` authenticated. */
  viewer?: Viewer;
}

export type ToolrunYoga = YogaServerInstance<ServerContext, GraphQLContext>;

export function createToolrunYoga(services: Services, options: { graphiqlApiKey?: string; shutdown?: AbortSignal } = {}): ToolrunYoga {
  const { config, logger } = services;
  const armor = new EnvelopArmor({
    maxDepth: { n: config.MAX_QUERY_DEPTH, ignoreIntrospection: true, onReject: [withCode('QUERY_TOO_DEEP')] },
    maxAliases: { n: config.MAX_QUERY_ALIASES, onReject: [withCode('QUERY_TOO_MANY_ALIASES')] },
    // Cost is ours (use-query-cost.ts): it scales with page sizes and refuses with a code.
    costLimit: { enabled: false },
    maxTokens: { n: config.MAX_QUERY_TOKENS, onReject: [withCode('QUERY_TOO_LONG')] },
    maxDirectives: { n: 50, onReject: [withCode('QUERY_TOO_MANY_DIRECTIVES')] },
    blockFieldSuggestion: { enabled: config.NODE_ENV === 'production' },
  });
  const admission = useEarlyAdmission(GRAPHQL_PATH, async (request) => {
    const viewer = await authenticateRequest(services, request);
    const refusal = await services.rateLimiter.take(viewer);
    if (refusal) throw refusal;
    return viewer;
  });
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    healthCheckEndpoint: '/health',
    landingPage: false,
    // useRequestSizeLimit enforces MAX_REQUEST_BYTES on the declared length and on the bytes read;
    // yoga's own check would also pipe every body through a TransformStream.
    maxRequestBodySize: false,
    logging: yogaLogger(logger),
    maskedErrors: { isDev: false, maskError },
    graphiql: graphiqlOptions(config, options.graphiqlApiKey),
    renderGraphiQL,
    cors: corsPolicy(config.CORS_ORIGINS),
    plugins: [
      useReadinessCheck({ endpoint: '/ready', check: ({ fetchAPI }) => readiness(services, options.shutdown?.aborted ?? false, fetchAPI.Response) }),
      useRequestSizeLimit(config.MAX_REQUEST_BYTES),
      admission.plugin,
      useGraphqlMetrics(),
      useIntrospectionSetting(config.INTROSPECTION),
      useTracing(),
      ...armor.protect().plugins,
      useInputLimits(inputLimitsOf(config)),
      useOperationChecks(operationChecks(config)),
      useRequestErrorCodes(),
      useUnservedStreams(),
    ],
    context: async (initial) => {
      const { shutdown } = options;
      // A WebSocket operation (viewer given by the socket) takes its point in app.ts' onSubscribe.
      const viewer = initial.viewer ?? (initial.request ? await admission.of(initial.request) : null);
      if (!viewer) throw unauthenticated();
      addLogContext({ tenantId: viewer.tenantId });
      return { viewer, services, shutdown };
    },
  });
}

const inputLimitsOf = (config: Config) => ({ maxJsonDepth: config.MAX_JSON_DEPTH, maxCallsPerRequest: config.MAX_CALLS_PER_REQUEST, maxQueryDepth: config.MAX_QUERY_DEPTH });

/** What every operation passes before it runs, in order: its input, then its cost. */
export function operationChecks(config: Config): OperationCheck[] {
  return [inputLimitsCheck(inputLimitsOf(config)), queryCostCheck(config.MAX_QUERY_COST)];
}

/** A refusal of graphql-armor's, given the code that names it (its errors carry none). */
function withCode(code: string) {
  return (_context: unknown, error: GraphQLError) => {
    (error.extensions as Record<string, unknown>).code = code;
  };
}

/** 200 when PostgreSQL and Redis both answer within 1.5 s and the process is not shutting down, else 503; the body says which. */
async function readiness(services: Services, closing: boolean, Response: typeof globalThis.Response): Promise<Response> {
  const timeout = <T>(promise: Promise<T>) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 1500).unref())]);
  const [database, redis] = await Promise.all([
    timeout(pingDatabase(services.db)).then(() => 'ok', () => 'unreachable'),
    timeout(services.redis.command.ping()).then(() => 'ok', () => 'unreachable'),
  ]);
  const ready = !closing && database === 'ok' && redis === 'ok';
  const body = { status: ready ? 'ready' : 'not ready', database, redis, closing };
  return new Response(JSON.stringify(body), { status: ready ? 200 : 503, headers: { 'content-type': 'application/json' } });
}
