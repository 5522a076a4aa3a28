import { startRoute } from '../../domain/route-lifecycle';
import { startRoute as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { routeView } from './views';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await startRoute(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    body?.timestamp ?? Date.now(),
  );
  return { route: routeView(route) };
});
