import { deactivateRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeView } from '../views';
import { deactivateRoute as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await deactivateRoute({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { route: routeView(route) };
});
