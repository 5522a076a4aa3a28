import { assignVehicle } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeView } from '../views';
import { assignVehicle as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await assignVehicle(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    body.vehicle_id,
  );
  return { route: routeView(route) };
});
