// The paths of the endpoints beside GraphQL whose code the API loads on their first request.
export const MCP_PATH = '/mcp';
export const QUEUE_BOARD_PATH = '/admin/queues';
