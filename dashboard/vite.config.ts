import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into dist/dashboard/, which the API serves at `/` (src/server/dashboard.ts).
// `npm run dashboard:dev` serves it with hot reload, sending /graphql to a toolrun on :4000.
const root = fileURLToPath(new URL('.', import.meta.url));
export default defineConfig({
  root,
  plugins: [react()],
  // toolrun's typed client (src/client/, no Node built-ins), the same module as the package's `toolrun/client`.
  resolve: { alias: { 'toolrun/client': fileURLToPath(new URL('../src/client/index.ts', import.meta.url)) } },
  build: { outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)), emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/graphql': { target: 'http://127.0.0.1:4000', ws: true } } },
});
