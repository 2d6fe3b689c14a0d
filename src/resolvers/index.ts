// The root types and every root field. Each field states the role it needs (its authScopes) and
// resolves with a direct call into the domain.
import { builder } from '../schema/builder.js';
import './sessions.js';
import './batches.js';
import './call-decisions.js';
import './events.js';
import './tasks.js';
import './tools.js';
import './mcp-servers.js';
import './tenant.js';
import './api-keys.js';
import './system-status.js';

builder.queryType({ description: 'Every field requires an API key (Authorization: Bearer <key>).' });
builder.mutationType({ description: 'Every field requires an API key with the role it names; each answers its result or a typed error.' });
builder.subscriptionType({ description: 'Live events, over graphql-ws or SSE; every stream can resume after the last cursor it delivered.' });
