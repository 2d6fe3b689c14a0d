// The GraphQL HTTP/SSE endpoint, without a listening socket (app.ts adds that and WebSocket).
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Viewer } from '../domain/api-keys.js';
import { schema } from '../schema/index.js';
import type { GraphQLContext } from '../schema/context.js';
import { addLogContext } from '../logging/context.js';
import type { Services } from '../services.js';
import { authenticateRequest, unauthenticated } from './auth.js';
import { useRequestSizeLimit } from './plugins/use-request-size-limit.js';
import { yogaLogger } from './yoga-logger.js';

export interface ServerContext {
  /** Set by the WebSocket server once `connection_init` authenticated. */
  viewer?: Viewer;
}

export type ToolrunYoga = YogaServerInstance<ServerContext, GraphQLContext>;

export function createToolrunYoga(services: Services, options: { graphiqlApiKey?: string; shutdown?: AbortSignal } = {}): ToolrunYoga {
  const { config, logger } = services;
  const armor = new EnvelopArmor({
    maxDepth: { n: config.MAX_QUERY_DEPTH, ignoreIntrospection: true },
    maxAliases: { n: config.MAX_QUERY_ALIASES },
    costLimit: { maxCost: config.MAX_QUERY_COST, ignoreIntrospection: true },
    maxTokens: { n: config.MAX_QUERY_TOKENS },
    maxDirectives: { n: 50 },
    blockFieldSuggestion: { enabled: config.NODE_ENV === 'production' },
  });
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: yogaLogger(logger),
    maskedErrors: { isDev: false },
    graphiql: {
      title: 'toolrun',
      subscriptionsProtocol: 'SSE',
      ...(options.graphiqlApiKey ? { headers: JSON.stringify({ Authorization: `Bearer ${options.graphiqlApiKey}` }) } : {}),
    },
    plugins: [useRequestSizeLimit(config.MAX_REQUEST_BYTES), ...armor.protect().plugins],
    context: async (initial) => {
      const { shutdown } = options;
      const viewer = initial.viewer ?? (initial.request ? await authenticateRequest(services, initial.request) : null);
      if (!viewer) throw unauthenticated();
      addLogContext({ tenantId: viewer.tenantId });
      return { viewer, services, shutdown };
    },
  });
}
