import { waypointOf } from '../../domain/route-reports';
import { getWaypoint as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { waypointView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const waypoint = await waypointOf(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    params.waypoint_id,
  );
  return { waypoint: waypointView(waypoint) };
});
