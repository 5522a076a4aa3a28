import { assignDriver } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeView } from '../views';
import { assignDriver as endpoint } from './endpoint';

/** Serves both PATCH and PUT (one Lambda). */
export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const route = await assignDriver(
    { accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id },
    body.driver_id,
  );
  return { route: routeView(route) };
});
