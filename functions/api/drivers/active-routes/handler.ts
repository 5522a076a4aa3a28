import { activeRoutesOf } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { getDriverActiveRoutes as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const routes = await activeRoutesOf({
    accountId: caller.accountId,
    dcId: params.dc_id,
    driverId: params.driver_id,
  });
  return {
    active_routes: routes.map((route) => ({ planned_start_time: route.startTime, route_id: route.routeId })),
  };
});
