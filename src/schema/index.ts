// Every GraphQL type with its fields; the root fields are src/resolvers/, and src/graphql.ts
// builds the schema from both.
import './scalars.js';
import './errors.js';
import './tool.js';
import './mcp-server.js';
import './outcome.js';
import './session.js';
import './batch.js';
import './events.js';
import './tasks.js';
import './task-events.js';
import './call-decisions.js';
import './tenant.js';
import './api-key.js';
import './system-status.js';
