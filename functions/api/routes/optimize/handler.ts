import { requestOptimization } from '../../../domain/route-optimization';
import { httpHandler, WithStatus } from '../../http-handler';
import { routeRef } from '../../refs';
import { requestOptimization as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const optimizationId = await requestOptimization(routeRef(caller, params), {
    apply: body.apply,
    lockedWaypointIds: body.locked_waypoint_ids,
  });
  return new WithStatus(202, { optimization_id: optimizationId });
});
