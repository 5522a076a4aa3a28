import { getRoute } from '../../../domain/routes';
import { httpHandler } from '../../http-handler';
import { routeView } from '../views';
import { getRoute as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await getRoute({ accountId: caller.accountId, dcId: params.dc_id, routeId: params.route_id });
  return { route: routeView(route) };
});
