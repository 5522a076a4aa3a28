import { reorderWaypoints } from '../../../domain/route-order';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { reorderWaypoints as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await reorderWaypoints(routeRef(caller, params), body.waypoint_ids);
  return { route: routeView(route) };
});
