import { boot, listen, onShutdown } from './run.js';

const booted = await boot({ migrate: false, service: 'toolrun-api' });
const { createApiServer } = await import('../server/app.js');
const api = createApiServer(booted.services);
const port = await listen(api, booted);
booted.logger.info({ url: `http://${booted.config.HOST}:${port}/graphql` }, 'api listening');
onShutdown(booted, () => api.close());
