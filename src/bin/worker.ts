import { boot, listen, onShutdown, orFail } from './run.js';

const booted = await boot({ migrate: false, service: 'toolrun-worker' });
const [{ startWorkerRuntime }, { createMetricsServer }] = await Promise.all([import('../jobs/worker-runtime.js'), import('../telemetry/metrics-server.js')]);
const { config, logger, services } = booted;
// Its own metrics port, taken before any job: a port in use ends the process in one line.
const metrics = config.WORKER_METRICS_PORT === undefined ? null : createMetricsServer();
const metricsPort = metrics ? await listen(metrics, booted, { port: { value: config.WORKER_METRICS_PORT!, setting: 'WORKER_METRICS_PORT' } }) : null;
const runtime = await orFail(booted, () => startWorkerRuntime(services), async () => void (await metrics?.close()));
logger.info({ workerId: services.workerId, ...(metricsPort === null ? {} : { metrics: `http://${config.HOST}:${metricsPort}/metrics` }) }, 'worker running');
onShutdown(booted, async () => {
  await runtime.stop();
  await metrics?.close();
});
