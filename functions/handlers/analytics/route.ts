import { requireRouteAnalytics } from '../../domain/route-analytics';
import { getRouteAnalytics as endpoint } from '../../endpoints/analytics';
import { httpHandler } from '../../shared/http-handler';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  route_analytics: await requireRouteAnalytics({
    accountId: caller.accountId,
    dcId: params.dc_id,
    routeId: params.route_id,
  }),
}));
