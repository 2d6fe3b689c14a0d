// GraphQL operations in the process's metrics (@envelop/prometheus): how many, how long, and which
// failed in which phase, by operation type. Resolver timing stays off (it costs per field). No label
// a client chooses (operation names, error paths, which hold aliases): /metrics is unauthenticated
// and every label value is a series kept for the life of the process.
import { usePrometheus } from '@envelop/prometheus';
import { metricsRegistry } from '../../telemetry/metrics.js';

export function useGraphqlMetrics() {
  return usePrometheus({
    registry: metricsRegistry,
    skipIntrospection: true,
    labels: { operationName: false, path: false },
    metrics: {
      graphql_envelop_request: true,
      graphql_envelop_request_duration: true,
      graphql_envelop_error_result: true,
    },
  });
}
