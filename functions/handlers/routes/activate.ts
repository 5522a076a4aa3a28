import { activateRoute } from '../../domain/routes';
import { activateRoute as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { routeView } from './views';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await activateRoute({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { route: routeView(route) };
});
