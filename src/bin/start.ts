// Local all-in-one: creates and migrates the database, runs the API and a worker in one process,
// and prints where GraphiQL is with a development API key.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Services } from '../services.js';
import { boot, listen, onShutdown, orFail } from './run.js';

const booted = await boot({ migrate: true, localServices: true, service: 'toolrun' });
const [{ startWorkerRuntime }, { createApiServer }, { mayEmbedApiKey }] = await Promise.all([
  import('../jobs/worker-runtime.js'),
  import('../server/app.js'),
  import('../server/graphiql.js'),
]);
const { config, services } = booted;
const apiKey = await developmentKey(services);
const api = createApiServer(services, { graphiqlApiKey: apiKey });
// Listen first: a port in use ends the process before a worker has taken any job.
const port = await listen(api, booted);
const runtime = await orFail(booted, () => startWorkerRuntime(services), () => api.close());
const url = `http://${config.HOST}:${port}/graphql`;
console.log(`
toolrun is running (API + worker)
  Dashboard: http://${config.HOST}:${port}/   (sign in with the API key below)
  GraphiQL:  ${url}
  API key:   ${apiKey}   (tenant "${config.DEV_TENANT}"; ${mayEmbedApiKey(config) ? 'GraphiQL sends it for you' : 'add it to GraphiQL\'s headers: the page carries it only on a loopback HOST in development'})
  Try:       curl -s ${url} -H 'authorization: Bearer ${apiKey}' -H 'content-type: application/json' -d '{"query":"{ tools { name } }"}'
`);
onShutdown(booted, async () => {
  await api.close();
  await runtime.stop();
});

/** Reuses the key saved in .data/ while it is still valid for this database, else makes one. */
async function developmentKey(services: Services): Promise<string> {
  const file = join(config.TOOLRUN_DATA_DIR, 'dev-api-key');
  const saved = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (saved && (await services.apiKeys.authenticate(saved))) return saved;
  const { key } = await services.apiKeys.createKey(config.DEV_TENANT, { name: 'development', roles: ['submitter', 'approver', 'admin'] });
  await mkdir(config.TOOLRUN_DATA_DIR, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
