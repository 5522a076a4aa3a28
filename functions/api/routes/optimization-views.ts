import type { Optimization } from '../../domain/records';
import { apiFields } from '../../shared/field-names';

/** An optimization as GET .../optimizations/{id} answers it. */
export const optimizationView = (optimization: Optimization) => ({
  ...apiFields(optimization, [
    'optimizationId',
    'status',
    'apply',
    'lockedWaypointIds',
    'waypointIds',
    'before',
    'after',
  ]),
  applied: optimization.applied ?? false,
  ...apiFields(optimization, ['stoppedByTimeLimit', 'error']),
  created_timestamp: optimization.createdAt,
  finished_timestamp: optimization.finishedAt ?? null,
});
