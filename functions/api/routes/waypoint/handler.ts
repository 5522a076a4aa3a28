import { waypointOf } from '../../../domain/route-reports';
import { httpHandler } from '../../http-handler';
import { waypointView } from '../views';
import { getWaypoint as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const waypoint = await waypointOf(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    params.waypoint_id,
  );
  return { waypoint: waypointView(waypoint) };
});
