import { unassignDriver } from '../../domain/routes';
import { unassignDriver as endpoint } from '../../endpoints/routes';
import { httpHandler } from '../../shared/http-handler';
import { routeView } from './views';

export const handler = httpHandler(endpoint, async ({ params, caller }) => {
  const route = await unassignDriver({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  });
  return { route: routeView(route) };
});
