import type { Optimization } from '../../domain/records';

/** An optimization as GET .../optimizations/{id} answers it. */
export const optimizationView = (optimization: Optimization) => ({
  optimization_id: optimization.optimizationId,
  status: optimization.status,
  apply: optimization.apply,
  locked_waypoint_ids: optimization.lockedWaypointIds,
  waypoint_ids: optimization.waypointIds ?? null,
  before: optimization.before ?? null,
  after: optimization.after ?? null,
  applied: optimization.applied ?? false,
  stopped_by_time_limit: optimization.stoppedByTimeLimit ?? null,
  error: optimization.error ?? null,
  created_timestamp: optimization.createdAt,
  finished_timestamp: optimization.finishedAt ?? null,
});
