// GraphQL operations in the process's metrics (@envelop/prometheus): how many, how long, and which
// failed in which phase, by operation name and type. Resolver timing stays off (it costs per field).
import { usePrometheus } from '@envelop/prometheus';
import { metricsRegistry } from '../../telemetry/metrics.js';

export function useGraphqlMetrics() {
  return usePrometheus({
    registry: metricsRegistry,
    skipIntrospection: true,
    metrics: {
      graphql_envelop_request: true,
      graphql_envelop_request_duration: true,
      graphql_envelop_error_result: true,
    },
  });
}
