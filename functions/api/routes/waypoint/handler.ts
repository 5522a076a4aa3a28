import { waypointOf } from '../../../domain/route-reports';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeWaypointView } from '../views';
import { getWaypoint as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const waypoint = await waypointOf(routeRef(caller, params), params.waypoint_id);
  return { waypoint: routeWaypointView(waypoint) };
});
