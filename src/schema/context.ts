import type { Viewer } from '../domain/tenants/api-keys.js';
import type { Services } from '../services.js';

export interface GraphQLContext {
  /** Always set for operations: unauthenticated requests are refused before execution. */
  viewer: Viewer;
  services: Services;
  /** Aborted when the API process shuts down: live subscriptions complete. */
  shutdown?: AbortSignal;
}
