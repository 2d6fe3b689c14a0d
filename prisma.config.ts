import { defineConfig } from 'prisma/config';

// The URL is read from the environment directly: the `env()` helper throws when it is unset,
// which `prisma generate` does not need.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolrun' },
});
