import { cancelWaypoint } from '../../../domain/waypoint-cancellation';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { cancelWaypoint as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await cancelWaypoint(routeRef(caller, params), params.waypoint_id);
  return { route: routeView(route) };
});
