import { builder } from './builder.js';
import './scalars.js';
import './errors.js';
import './tool.js';
import './outcome.js';
import './session.js';
import './batch.js';
import './events.js';
import './tasks.js';
import './task-events.js';
import './call-decisions.js';
import './tenant.js';

builder.queryType({ description: 'Every field requires an API key (Authorization: Bearer <key>).' });
builder.mutationType({});
builder.subscriptionType({});

export const schema = builder.toSchema({ sortSchema: true });
