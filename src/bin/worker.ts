import { startWorkerRuntime } from '../jobs/worker-runtime.js';
import { boot, onShutdown } from './run.js';

const booted = await boot({ migrate: false });
const runtime = await startWorkerRuntime(booted.services);
booted.logger.info({ workerId: booted.services.workerId }, 'worker running');
onShutdown(booted, () => runtime.stop());
