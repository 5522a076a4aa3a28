import { activeRoutesOf } from '../../../domain/drivers';
import { httpHandler } from '../../http-handler';
import { driverRef } from '../../refs';
import { getDriverActiveRoutes as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const routes = await activeRoutesOf(driverRef(caller, params));
  return {
    active_routes: routes.map((route) => ({ planned_start_time: route.startTime, route_id: route.routeId })),
  };
});
