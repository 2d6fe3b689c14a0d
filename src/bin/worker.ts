import { startWorkerRuntime } from '../jobs/worker-runtime.js';
import { boot, onShutdown } from './run.js';

const { services } = await boot({ migrate: false });
const runtime = await startWorkerRuntime(services);
services.logger.info({ workerId: services.workerId }, 'worker running');
onShutdown(services, () => runtime.stop());
