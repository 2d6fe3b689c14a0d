import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** Writes a .br and a .gz beside each text file of the build, which the server sends to browsers that accept them (sirv). */
function precompressed(outDir: string): Plugin {
  const TEXT = /\.(html|js|css|svg|json)$/;
  return {
    name: 'toolrun-precompressed',
    apply: 'build',
    writeBundle() {
      for (const entry of readdirSync(outDir, { recursive: true, encoding: 'utf8' })) {
        if (!TEXT.test(entry)) continue;
        const file = join(outDir, entry);
        const bytes = readFileSync(file);
        if (bytes.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

// Built into dist/dashboard/, which the API serves at `/` (src/server/dashboard.ts).
// `npm run dashboard:dev` serves it with hot reload, sending /graphql to a toolrun on :4000 (or TOOLRUN_API).
const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/dashboard', import.meta.url));
export default defineConfig({
  root,
  plugins: [react(), precompressed(outDir)],
  // toolrun's typed client (src/client/, no Node built-ins), the same module as the package's `toolrun/client`.
  resolve: { alias: { 'toolrun/client': fileURLToPath(new URL('../src/client/index.ts', import.meta.url)) } },
  // Compressing at brotli's best takes most of the build, on purpose: no warning about it in the
  // output of every `npm start` that builds the dashboard (rolldown 1.2's native side reads the
  // deprecated `pluginTimings`, its JS side `bundlerTimings`: both are off).
  build: { outDir, emptyOutDir: true, sourcemap: true, rolldownOptions: { checks: { bundlerTimings: false, pluginTimings: false } } },
  server: { proxy: { '/graphql': { target: process.env.TOOLRUN_API ?? 'http://127.0.0.1:4000', ws: true } } },
});
