import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for GraphQL clients from the committed schema.graphql: the test suite's
// (test/gql), the typed client's (src/client/gql) and the dashboard's (dashboard/src/gql).
const shared = {
  preset: 'client',
  presetConfig: { fragmentMasking: false },
  config: {
    useTypeImports: true,
    enumsAsTypes: true,
    scalars: { JSON: 'unknown', DateTime: 'string' },
    importExtension: '.js',
  },
} as const;

const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: false,
  generates: {
    'src/client/gql/': { ...shared, documents: ['src/client/operations/**/*.graphql'] },
    'test/gql/': { ...shared, documents: ['test/operations/**/*.graphql'] },
    'dashboard/src/gql/': { ...shared, documents: ['dashboard/src/**/*.graphql'] },
  },
};

export default config;
