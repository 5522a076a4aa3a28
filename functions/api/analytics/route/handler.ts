import { requireRouteAnalytics } from '../../../domain/route-analytics';
import { httpHandler } from '../../http-handler';
import { routeRef } from '../../refs';
import { getRouteAnalytics as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  route_analytics: await requireRouteAnalytics(routeRef(caller, params)),
}));
