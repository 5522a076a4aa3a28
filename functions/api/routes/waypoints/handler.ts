import { waypointsOf } from '../../../domain/route-reports';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeWaypointView } from '../views';
import { listWaypoints as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await waypointsOf(routeRef(caller, params), {
    limit: query.limit,
    nextToken: query.next_token,
    bytesOf: (waypoint) => proxyBytesOf(routeWaypointView(waypoint)),
  });
  return { waypoints: page.items.map(routeWaypointView), next_token: page.nextToken };
});
