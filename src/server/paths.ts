// The GraphQL endpoint, and the paths of the endpoints beside it whose code the API loads on their first request.
export const GRAPHQL_PATH = '/graphql';
export const MCP_PATH = '/mcp';
export const QUEUE_BOARD_PATH = '/admin/queues';
