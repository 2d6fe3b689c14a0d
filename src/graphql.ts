// The GraphQL schema: the types of src/schema/ and the root fields of src/resolvers/.
import { builder } from './schema/builder.js';
import './schema/index.js';
import './resolvers/index.js';

export const schema = builder.toSchema({ sortSchema: true });
