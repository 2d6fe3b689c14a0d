import type { CodegenConfig } from '@graphql-codegen/cli';

// Typed documents for GraphQL clients (the test suite and src/client) from the committed schema.graphql.
const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: false,
  generates: {
    'src/client/gql/': {
      documents: ['src/client/operations/**/*.graphql'],
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { JSON: 'unknown', DateTime: 'string' },
        importExtension: '.js',
      },
    },
    'test/gql/': {
      documents: ['test/operations/**/*.graphql'],
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
