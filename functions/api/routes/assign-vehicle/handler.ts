import { assignVehicle } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { routeView } from '../views';
import { assignVehicle as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await assignVehicle(routeRef(caller, params), body.vehicle_id);
  return { route: routeView(route) };
});
