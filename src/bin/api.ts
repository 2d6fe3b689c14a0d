import { createApiServer } from '../server/app.js';
import { boot, onShutdown } from './run.js';

const { config, services } = await boot({ migrate: false });
const api = createApiServer(services);
const port = await api.listen(config.PORT, config.HOST);
services.logger.info({ url: `http://${config.HOST}:${port}/graphql` }, 'api listening');
onShutdown(services, () => api.close());
