import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for GraphQL clients (the test suite is one) from the committed schema.graphql.
const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/operations/**/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'test/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { JSON: 'unknown', DateTime: 'string' },
        importExtension: '.js',
      },
    },
  },
};

export default config;
