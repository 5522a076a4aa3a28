import { requireRouteAnalytics } from '../../../domain/route-analytics';
import { httpHandler } from '../../http-handler';
import { getRouteAnalytics as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  route_analytics: await requireRouteAnalytics({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  }),
}));
