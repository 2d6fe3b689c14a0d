// Typed GraphQL documents (test/gql) from schema.graphql, through the codegen's programmatic API:
// its CLI cannot load the TypeScript config (codegen.ts) on Node 20 by itself, tsx can.
import { generate } from '@graphql-codegen/cli';
import config from '../codegen.js';

await generate({ ...config, silent: true }, true);
console.log('wrote test/gql and dashboard/src/gql');
