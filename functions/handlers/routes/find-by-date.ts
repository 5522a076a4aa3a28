import { routesOfDate } from '../../domain/routes';
import { findRoutesByDate as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { routeView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const routes = await routesOfDate(caller.accountId, params.dc_id, params.date);
  return { routes: routes.map(routeView) };
});
