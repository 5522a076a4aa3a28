import { waypointsOf } from '../../domain/route-reports';
import { listWaypoints as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { waypointView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const waypoints = await waypointsOf({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { waypoints: waypoints.map(waypointView) };
});
