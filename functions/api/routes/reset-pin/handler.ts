import { resetStopPin } from '../../../domain/stop-pins';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { resetWaypointPin as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  waypoint_id: params.waypoint_id,
  pin: await resetStopPin(routeRef(caller, params), params.waypoint_id),
}));
