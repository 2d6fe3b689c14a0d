// The GraphQL HTTP/SSE endpoint, without a listening socket (app.ts adds that and WebSocket).
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Viewer } from '../domain/tenants/api-keys.js';
import { schema } from '../graphql.js';
import type { GraphQLContext } from '../schema/context.js';
import type { Services } from '../services.js';
import { authenticateRequest, unauthenticated } from './auth.js';
import { useRequestSizeLimit } from './plugins/use-request-size-limit.js';

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
    logging: {
      debug: (...args) => logger.debug(args),
      info: (...args) => logger.info(args),
      warn: (...args) => logger.warn(args),
      error: (...args) => logger.error(args),
    },
    maskedErrors: { isDev: false },
    graphiql: {
      title: 'toolrun',
      subscriptionsProtocol: 'SSE',
      ...(options.graphiqlApiKey ? { headers: JSON.stringify({ Authorization: `Bearer ${options.graphiqlApiKey}` }) } : {}),
    },
    plugins: [useRequestSizeLimit(config.MAX_REQUEST_BYTES), ...armor.protect().plugins],
    context: async (initial) => {
      const { shutdown } = options;
      if (initial.viewer) return { viewer: initial.viewer, services, shutdown };
      if (!initial.request) throw unauthenticated();
      return { viewer: await authenticateRequest(services, initial.request), services, shutdown };
    },
  });
}
