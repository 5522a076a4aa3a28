import { routesOfDate } from '../../../domain/routes';
import { proxyBytesOf } from '../../../shared/limits';
import { httpHandler } from '../../http-handler';
import { routeView } from '../views';
import { findRoutesByDate as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, query, caller }) => {
  const page = await routesOfDate(caller.accountId, params.dc_id, params.date, {
    limit: query.limit,
    nextToken: query.next_token,
    bytesOf: (route) => proxyBytesOf(routeView(route)),
  });
  return { routes: page.items.map(routeView), next_token: page.nextToken };
});
